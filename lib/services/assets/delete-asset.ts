import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { getLogger } from '../../log';
import { cancelAssetWork } from '../../jobs/signals';
import { assetJson } from '../master/master-links';
import { assetDirectory, removeAssetFiles } from '../../storage/asset-files';
import { uploadDirectory } from '../../storage/upload-files';
import { rm } from 'node:fs/promises';
import { forgetAssetPlayback } from '../playback/playback-records';
import { tellOtherNodes } from '../../coordination/tell-other-nodes';
import { segmentCache } from '../playback/runtime';
import { deleteSharedAsset } from '../storage/shared-storage';
import { recordWebhookEvent } from '../webhooks/record-webhook-event';
import { assetInclude, findAssetOrThrow } from '../records/asset-record';

// DELETE /video/v1/assets/{id}: stops any work on the asset, removes its rows and its files.
// video.asset.deleted carries the asset as it was just before, and is recorded by whichever of two
// concurrent deletes actually removed the row.
export const deleteAsset = async ({ assetId }: { assetId: string }): Promise<void> => {
  const db = getDb();
  await findAssetOrThrow(db, assetId);
  let uploadId: string | null = null;
  await db.$transaction(async (tx) => {
    const asset = await tx.asset.findUnique({ where: { id: assetId }, include: assetInclude });
    await tx.playbackId.deleteMany({ where: { assetId } });
    const deleted = await tx.asset.deleteMany({ where: { id: assetId } });
    uploadId = asset?.uploadId ?? null;
    if (asset && deleted.count === 1) {
      await recordWebhookEvent(tx, { type: 'video.asset.deleted', object: { type: 'asset', id: assetId }, data: assetJson(asset) });
    }
  });
  await forgetAssetPlayback(assetId);
  cancelAssetWork(assetId);
  await tellOtherNodes({ type: 'asset-deleted', assetId });
  segmentCache().forgetUnder(assetDirectory(getEnv().dataDir, assetId));
  // The asset is gone once its row is: a file that cannot be removed now is logged, not a 500 for
  // a delete that happened.
  try {
    await deleteSharedAsset(assetId);
    await removeAssetFiles(getEnv().dataDir, assetId);
    // An upload's file waits in the upload folder until the ingest adopts it.
    if (uploadId) await rm(uploadDirectory(getEnv().dataDir, uploadId), { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  } catch (error) {
    getLogger().error({ err: error, assetId }, 'removing a deleted asset’s files failed');
  }
};
