import { getDb } from '../../db/client';
import { listLiveStreams } from '../live-streams/list-live-streams';
import type { StoredLiveStream } from '../live-streams/live-stream-record';

// The dashboard's live stream table: the API's list (newest first) plus the total its page
// numbers need, which Mux's list does not report.
export const pageLiveStreams = async ({ page, limit }: { page: number; limit: number }): Promise<{ liveStreams: StoredLiveStream[]; total: number }> => {
  const [liveStreams, total] = await Promise.all([listLiveStreams({ page, limit }), getDb().liveStream.count()]);
  return { liveStreams, total };
};
