import { getDb } from '../../db/client';
import { stopBroadcast } from '../live/broadcast-control';
import { findLiveStreamOrThrow } from './live-stream-record';

// PUT /video/v1/live-streams/{id}/complete: ends the running broadcast now (its recording closes,
// the playlist gains EXT-X-ENDLIST); the state changes arrive as the runtime's webhooks. Without
// a broadcast there is nothing to end.
export const completeLiveStream = async ({ liveStreamId }: { liveStreamId: string }): Promise<void> => {
  const stream = await findLiveStreamOrThrow(getDb(), liveStreamId);
  if (stream.status === 'active') await stopBroadcast(liveStreamId, 'complete');
};
