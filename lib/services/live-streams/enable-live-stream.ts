import { getDb } from '../../db/client';
import { recordLiveStreamEvent } from '../live/live-stream-events';
import { findLiveStreamOrThrow } from './live-stream-record';

// PUT /video/v1/live-streams/{id}/enable: a disabled stream is `idle` again and accepts its
// publisher; an enabled one is left as it is, without an event.
export const enableLiveStream = async ({ liveStreamId }: { liveStreamId: string }): Promise<void> => {
  await getDb().$transaction(async (tx) => {
    await findLiveStreamOrThrow(tx, liveStreamId);
    const updated = await tx.liveStream.updateMany({ where: { id: liveStreamId, status: 'disabled' }, data: { status: 'idle' } });
    if (updated.count === 1) await recordLiveStreamEvent(tx, 'video.live_stream.enabled', liveStreamId);
  });
};
