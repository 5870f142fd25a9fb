import { getDb } from '../../db/client';
import { ApiError, notFound } from '../../errors/api-error';
import type { PlaybackIdRecord } from '../../schemas/asset';
import type { PlaybackPolicy } from '../../schemas/asset-settings';
import { generateId } from '../../utils/ids';
import { recordLiveStreamEvent } from '../live/live-stream-events';
import { findLiveStreamOrThrow } from './live-stream-record';

// A live stream's playback IDs (POST/GET/DELETE …/live-streams/{id}/playback-ids). Adding or
// removing one changes the stream's playback_ids, so subscribers get video.live_stream.updated,
// as an asset's subscribers get video.asset.updated.

const playbackIdSelect = { id: true, policy: true } as const;

export const createLivePlaybackId = async ({
  liveStreamId,
  policy,
}: {
  liveStreamId: string;
  policy: PlaybackPolicy | 'drm';
}): Promise<PlaybackIdRecord> => {
  if (policy === 'drm') throw new ApiError('invalid_parameters', 'policy: "drm" is not supported by this server');
  return getDb().$transaction(async (tx) => {
    await findLiveStreamOrThrow(tx, liveStreamId);
    const created = await tx.liveStreamPlaybackId.create({ data: { id: generateId(), liveStreamId, policy }, select: playbackIdSelect });
    await recordLiveStreamEvent(tx, 'video.live_stream.updated', liveStreamId);
    return created;
  });
};

export const getLivePlaybackId = async ({ liveStreamId, playbackId }: { liveStreamId: string; playbackId: string }): Promise<PlaybackIdRecord> => {
  const db = getDb();
  await findLiveStreamOrThrow(db, liveStreamId);
  const found = await db.liveStreamPlaybackId.findFirst({ where: { id: playbackId, liveStreamId }, select: playbackIdSelect });
  if (!found) throw notFound('Playback ID');
  return found;
};

export const deleteLivePlaybackId = async ({ liveStreamId, playbackId }: { liveStreamId: string; playbackId: string }): Promise<void> => {
  await getDb().$transaction(async (tx) => {
    await findLiveStreamOrThrow(tx, liveStreamId);
    const deleted = await tx.liveStreamPlaybackId.deleteMany({ where: { id: playbackId, liveStreamId } });
    if (deleted.count === 0) throw notFound('Playback ID');
    await recordLiveStreamEvent(tx, 'video.live_stream.updated', liveStreamId);
  });
};
