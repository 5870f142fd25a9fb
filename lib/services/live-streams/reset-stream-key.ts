import { getDb } from '../../db/client';
import { stopBroadcast } from '../live/broadcast-control';
import { recordLiveStreamEvent } from '../live/live-stream-events';
import { findLiveStreamOrThrow, newSrtPassphrase, newStreamKey, type StoredLiveStream } from './live-stream-record';

// POST /video/v1/live-streams/{id}/reset-stream-key: the old key stops working at once. The key
// changes before the publisher is dropped, so it cannot reconnect with the old one in between.
// The SRT passphrase is replaced with it: a leaked key has usually leaked with its passphrase (an
// SRT URL carries both), and the old pair stops working together.
export const resetStreamKey = async ({ liveStreamId }: { liveStreamId: string }): Promise<StoredLiveStream> => {
  const stream = await getDb().$transaction(async (tx) => {
    await findLiveStreamOrThrow(tx, liveStreamId);
    await tx.liveStream.update({ where: { id: liveStreamId }, data: { streamKey: newStreamKey(), srtPassphrase: newSrtPassphrase() } });
    await recordLiveStreamEvent(tx, 'video.live_stream.updated', liveStreamId);
    return findLiveStreamOrThrow(tx, liveStreamId);
  });
  await stopBroadcast(liveStreamId, 'reset-key');
  return stream;
};
