import { getDb } from '../../db/client';
import type { AssetInput } from '../../schemas/asset-settings';
import { findAssetOrThrow } from '../records/asset-record';

// The asset's inputs as stored (Mux's wire form: the video first, then each watermark with its
// overlay_settings), for the asset page. Unlike input-info it needs no probe, so it answers while
// the asset is still preparing.
export const getAssetInputs = async ({ assetId }: { assetId: string }): Promise<AssetInput[]> => {
  const db = getDb();
  await findAssetOrThrow(db, assetId);
  const { inputsJson } = await db.asset.findUniqueOrThrow({ where: { id: assetId }, select: { inputsJson: true } });
  return JSON.parse(inputsJson) as AssetInput[];
};
