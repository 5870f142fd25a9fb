import { LiveStreamDetail } from '@/components/live-streams/live-stream-detail';

export default async function Page({ params }: { params: Promise<{ liveStreamId: string }> }) {
  const { liveStreamId } = await params;
  return <LiveStreamDetail liveStreamId={liveStreamId} />;
}
