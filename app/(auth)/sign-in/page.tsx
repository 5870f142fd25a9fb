import { redirect } from 'next/navigation';
import { AuthCard } from '@/components/layout/auth-card';
import { SignInForm } from '@/components/layout/sign-in-form';
import { auth } from '@/lib/auth/dashboard-auth';
import { countUsers } from '@/lib/services/users/count-users';
import { signInAction } from '../actions';

export const dynamic = 'force-dynamic';

export default async function SignInPage() {
  if ((await countUsers()) === 0) redirect('/setup');
  if (await auth()) redirect('/assets');
  return (
    <AuthCard title="Sign in to Keyframe" subtitle="Use the account created when this server was set up.">
      <SignInForm action={signInAction} />
    </AuthCard>
  );
}
