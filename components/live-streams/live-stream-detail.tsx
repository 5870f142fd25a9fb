'use client';

import Link from 'next/link';
import { errorMessages } from '../hooks/api-fetch';
import { useLiveStream } from '../hooks/use-live-stream';
import { FOCUS_RING } from '../ui/button';
import { ErrorList } from '../ui/field';
import { StatusBadge } from '../ui/status-badge';
import { LivePlaybackIds } from './live-playback-ids';
import { LivePreview } from './live-preview';
import { LiveStreamActions } from './live-stream-actions';
import { LiveStreamFields } from './live-stream-fields';
import { liveStreamTitle } from './live-stream-title';
import { PublishPanel } from './publish-panel';
import { RecentRecordings } from './recent-recordings';
import { SimulcastTargets } from './simulcast-targets';

export function LiveStreamDetail({ liveStreamId }: { liveStreamId: string }) {
  const liveStream = useLiveStream(liveStreamId);

  if (liveStream.isPending) return <p className="text-sm text-zinc-500">Loading live stream…</p>;
  if (liveStream.isError) {
    return (
      <div className="space-y-3">
        <ErrorList messages={errorMessages(liveStream.error)} />
        <Link href="/live-streams" className={`text-sm text-indigo-700 underline ${FOCUS_RING}`}>
          Back to live streams
        </Link>
      </div>
    );
  }
  const { data: stream, ingest } = liveStream.data;

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center gap-3">
        <Link href="/live-streams" className={`text-sm text-indigo-700 hover:underline ${FOCUS_RING}`}>
          ← Live streams
        </Link>
        <h1 className="min-w-0 flex-1 basis-48 truncate text-2xl font-semibold">{liveStreamTitle(stream)}</h1>
        <span data-testid="live-stream-status">
          <StatusBadge status={stream.status} />
        </span>
        <LiveStreamActions stream={stream} />
      </div>
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <div className="space-y-6">
          <LivePreview stream={stream} streamUrl={ingest.stream_url} />
          <LiveStreamFields stream={stream} />
        </div>
        <div className="space-y-6">
          <PublishPanel stream={stream} ingest={ingest} />
          <LivePlaybackIds stream={stream} streamUrl={ingest.stream_url} />
          <SimulcastTargets stream={stream} />
          <RecentRecordings stream={stream} />
        </div>
      </div>
    </div>
  );
}
