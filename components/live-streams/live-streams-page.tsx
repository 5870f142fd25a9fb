'use client';

import { useState } from 'react';
import { errorMessages } from '../hooks/api-fetch';
import { LIVE_STREAMS_PAGE_SIZE, useLiveStreams } from '../hooks/use-live-streams';
import { ErrorList } from '../ui/field';
import { Pagination } from '../ui/pagination';
import { CreateLiveStreamForm } from './create-live-stream-form';
import { LiveStreamsTable } from './live-streams-table';

export function LiveStreamsPage() {
  const [page, setPage] = useState(1);
  const liveStreams = useLiveStreams(page);

  return (
    <div className="space-y-5">
      <h1 className="text-2xl font-semibold">Live streams</h1>
      <p className="text-sm text-zinc-600">
        Publish over RTMP (OBS, ffmpeg, mobile apps) with a stream’s key; viewers play its playback ID at the same{' '}
        <code className="font-mono">/{'{playback_id}'}.m3u8</code> as an asset. Each broadcast can be recorded to an asset.
      </p>
      <CreateLiveStreamForm />
      {liveStreams.isError && <ErrorList messages={errorMessages(liveStreams.error)} />}
      {liveStreams.isPending && <p className="text-sm text-zinc-500">Loading live streams…</p>}
      {liveStreams.data?.data.length === 0 && (
        <div className="rounded-lg border border-dashed border-zinc-300 bg-white p-8 text-center text-sm text-zinc-600">
          <p>
            No live streams yet. Create one above, or call <code className="font-mono">POST /video/v1/live-streams</code> with an
            access token.
          </p>
        </div>
      )}
      {liveStreams.data && liveStreams.data.data.length > 0 && (
        <>
          <LiveStreamsTable liveStreams={liveStreams.data.data} />
          <Pagination page={page} pageSize={LIVE_STREAMS_PAGE_SIZE} total={liveStreams.data.total} onPage={setPage} />
        </>
      )}
    </div>
  );
}
