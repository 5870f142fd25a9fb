import { getDb } from '../../db/client';
import { ApiError } from '../../errors/api-error';
import { notifyJobEnqueued } from '../../jobs/signals';
import type { AssetRecord } from '../../schemas/asset';
import { assetInclude, findAssetOrThrow } from '../records/asset-record';
import { removeMaster, startMaster } from './master-state';

// PUT /video/v1/assets/{ASSET_ID}/master-access. `temporary` on an asset whose master is already
// preparing or ready (and unexpired) changes nothing; after an error it tries again.
export const setMasterAccess = async ({ assetId, masterAccess }: { assetId: string; masterAccess: 'none' | 'temporary' }): Promise<AssetRecord> => {
  const db = getDb();
  const asset = await findAssetOrThrow(db, assetId);
  if (asset.status !== 'ready') throw new ApiError('failed_request', 'Master access can only be changed once the asset is ready');
  if (masterAccess === 'none') {
    await removeMaster(assetId);
    return findAssetOrThrow(db, assetId);
  }
  const expired = asset.masterExpiresAt !== null && asset.masterExpiresAt.getTime() <= Date.now();
  if (expired) await removeMaster(assetId, { onlyIfExpired: true });
  const current = expired ? null : asset.masterStatus;
  if (asset.masterAccess === 'temporary' && (current === 'preparing' || current === 'ready')) return asset;
  await db.$transaction((tx) => startMaster(tx, assetId));
  notifyJobEnqueued();
  return db.asset.findUniqueOrThrow({ where: { id: assetId }, include: assetInclude });
};
