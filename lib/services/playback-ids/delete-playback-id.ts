import { getDb } from '../../db/client';
import { notFound } from '../../http/api-error';
import { findAssetOrThrow } from '../assets/asset-record';

// DELETE /video/v1/assets/{id}/playback-ids/{playback_id}
export const deletePlaybackId = async ({ assetId, playbackId }: { assetId: string; playbackId: string }): Promise<void> => {
  const db = getDb();
  await findAssetOrThrow(db, assetId);
  const deleted = await db.playbackId.deleteMany({ where: { id: playbackId, assetId } });
  if (deleted.count === 0) throw notFound('Playback ID');
};
