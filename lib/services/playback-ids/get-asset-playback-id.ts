import { getDb } from '../../db/client';
import { notFound } from '../../errors/api-error';
import type { PlaybackIdRecord } from '../../schemas/asset';
import { findAssetOrThrow } from '../records/asset-record';

// GET /video/v1/assets/{id}/playback-ids/{playback_id}
export const getAssetPlaybackId = async ({
  assetId,
  playbackId,
}: {
  assetId: string;
  playbackId: string;
}): Promise<PlaybackIdRecord> => {
  const db = getDb();
  await findAssetOrThrow(db, assetId);
  const found = await db.playbackId.findFirst({ where: { id: playbackId, assetId }, select: { id: true, policy: true } });
  if (!found) throw notFound('Playback ID');
  return found;
};
