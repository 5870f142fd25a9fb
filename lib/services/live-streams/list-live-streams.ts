import { getDb } from '../../db/client';
import type { LiveStreamStatus } from '../../schemas/live-stream';
import { liveStreamInclude } from '../live/live-stream-events';
import type { StoredLiveStream } from './live-stream-record';

export const DEFAULT_LIVE_STREAM_PAGE_LIMIT = 25;

// GET /video/v1/live-streams, newest first, with Mux's page-number paging (an empty page past the
// end is how the SDK knows to stop).
export const listLiveStreams = async ({
  limit = DEFAULT_LIVE_STREAM_PAGE_LIMIT,
  page = 1,
  status,
  streamKey,
}: {
  limit?: number;
  page?: number;
  status?: LiveStreamStatus;
  streamKey?: string;
}): Promise<StoredLiveStream[]> =>
  getDb().liveStream.findMany({
    where: { ...(status && { status }), ...(streamKey !== undefined && { streamKey }) },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    skip: (page - 1) * limit,
    take: limit,
    include: liveStreamInclude,
  });
