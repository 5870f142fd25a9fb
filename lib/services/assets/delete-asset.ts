import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { cancelAssetWork } from '../../jobs/signals';
import { assetDirectory, removeAssetFiles } from '../../storage/asset-files';
import { segmentCache } from '../playback/runtime';
import { findAssetOrThrow } from './asset-record';

// DELETE /video/v1/assets/{id}: stops any work on the asset, removes its rows and its files.
export const deleteAsset = async ({ assetId }: { assetId: string }): Promise<void> => {
  const db = getDb();
  await findAssetOrThrow(db, assetId);
  await db.$transaction([
    db.playbackId.deleteMany({ where: { assetId } }),
    db.asset.deleteMany({ where: { id: assetId } }),
  ]);
  cancelAssetWork(assetId);
  segmentCache().forgetUnder(assetDirectory(getEnv().dataDir, assetId));
  await removeAssetFiles(getEnv().dataDir, assetId);
};
