import { getDb } from '../../db/client';
import { type AssetRecord } from '../../schemas/asset';
import { assetJson } from '../master/master-links';
import { recordWebhookEvent } from '../webhooks/record-webhook-event';
import { assetInclude, findAssetOrThrow } from '../records/asset-record';

// PATCH /video/v1/assets/{id}: only passthrough and meta can change; an empty passthrough clears it.
export const updateAsset = async ({
  assetId,
  passthrough,
  meta,
}: {
  assetId: string;
  passthrough?: string;
  meta?: Record<string, string | undefined>;
}): Promise<AssetRecord> => {
  const db = getDb();
  await findAssetOrThrow(db, assetId);
  return db.$transaction(async (tx) => {
    const updated = await tx.asset.update({
      where: { id: assetId },
      data: {
        ...(passthrough !== undefined && { passthrough: passthrough === '' ? null : passthrough }),
        ...(meta !== undefined && { metaJson: Object.keys(meta).length > 0 ? JSON.stringify(meta) : null }),
      },
      include: assetInclude,
    });
    await recordWebhookEvent(tx, { type: 'video.asset.updated', object: { type: 'asset', id: assetId }, data: assetJson(updated) });
    return updated;
  });
};
