import { LiveStreamsPage } from '@/components/live-streams/live-streams-page';

export default function Page() {
  return <LiveStreamsPage />;
}
