import { getDb } from '../../db/client';
import type { PlaybackPolicy } from '../../schemas/asset-settings';
import type { PlaybackIdRecord } from '../../schemas/asset';
import { generateId } from '../../utils/ids';
import { findAssetOrThrow } from '../assets/asset-record';

// POST /video/v1/assets/{id}/playback-ids
export const createPlaybackId = async ({
  assetId,
  policy,
}: {
  assetId: string;
  policy: PlaybackPolicy;
}): Promise<PlaybackIdRecord> => {
  const db = getDb();
  await findAssetOrThrow(db, assetId);
  return db.playbackId.create({ data: { id: generateId(), assetId, policy }, select: { id: true, policy: true } });
};
