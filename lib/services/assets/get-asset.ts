import { getDb } from '../../db/client';
import type { AssetRecord } from '../../schemas/asset';
import { removeMaster } from '../master/master-state';
import { findAssetOrThrow } from '../records/asset-record';

export const getAsset = async ({ assetId }: { assetId: string }): Promise<AssetRecord> => {
  const asset = await findAssetOrThrow(getDb(), assetId);
  // An expired master reverts on the first read that notices, not only at the next sweep.
  if (asset.masterAccess !== 'temporary' || !asset.masterExpiresAt || asset.masterExpiresAt.getTime() > Date.now()) return asset;
  await removeMaster(assetId, { onlyIfExpired: true });
  return findAssetOrThrow(getDb(), assetId);
};
