import { redirect } from 'next/navigation';

// The dashboard's home is the asset list; signed-out visitors are sent on to sign-in from there.
export default function HomePage() {
  redirect('/assets');
}
