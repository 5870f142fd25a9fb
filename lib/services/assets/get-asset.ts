import { getDb } from '../../db/client';
import type { AssetRecord } from '../../schemas/asset';
import { findAssetOrThrow } from './asset-record';

export const getAsset = async ({ assetId }: { assetId: string }): Promise<AssetRecord> =>
  findAssetOrThrow(getDb(), assetId);
