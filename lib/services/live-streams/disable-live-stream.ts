import { getDb } from '../../db/client';
import { stopBroadcast } from '../live/broadcast-control';
import { recordLiveStreamEvent } from '../live/live-stream-events';
import { findLiveStreamOrThrow } from './live-stream-record';

// PUT /video/v1/live-streams/{id}/disable: refuses publishers until enabled and ends a running
// broadcast. The status changes first, so a publisher reconnecting while the broadcast is being
// stopped is already refused. Disabling a disabled stream changes nothing and reports nothing.
export const disableLiveStream = async ({ liveStreamId }: { liveStreamId: string }): Promise<void> => {
  const changed = await getDb().$transaction(async (tx) => {
    await findLiveStreamOrThrow(tx, liveStreamId);
    const updated = await tx.liveStream.updateMany({ where: { id: liveStreamId, status: { not: 'disabled' } }, data: { status: 'disabled' } });
    if (updated.count === 0) return false;
    await recordLiveStreamEvent(tx, 'video.live_stream.disabled', liveStreamId);
    return true;
  });
  if (changed) await stopBroadcast(liveStreamId, 'disable');
};
