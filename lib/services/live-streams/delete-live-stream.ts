import { getDb } from '../../db/client';
import { notFound } from '../../errors/api-error';
import { stopBroadcast } from '../live/broadcast-control';
import { recordLiveStreamEvent } from '../live/live-stream-events';
import { findLiveStreamOrThrow } from './live-stream-record';

// DELETE /video/v1/live-streams/{id}: a running broadcast ends first (the publisher is
// disconnected and its recording closed); then the stream and its playback IDs go. Recordings
// stay as assets, still naming the stream in live_stream_id.
export const deleteLiveStream = async ({ liveStreamId }: { liveStreamId: string }): Promise<void> => {
  const db = getDb();
  await findLiveStreamOrThrow(db, liveStreamId);
  await stopBroadcast(liveStreamId, 'delete');
  await db.$transaction(async (tx) => {
    // The event carries the stream as it was; of two concurrent deletes, the one that did not
    // remove the row throws, which takes its event back out.
    await recordLiveStreamEvent(tx, 'video.live_stream.deleted', liveStreamId);
    const deleted = await tx.liveStream.deleteMany({ where: { id: liveStreamId } });
    if (deleted.count === 0) throw notFound('Live stream');
  });
};
