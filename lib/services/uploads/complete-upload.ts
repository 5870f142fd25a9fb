import { getDb } from '../../db/client';
import { notifyJobEnqueued } from '../../jobs/signals';
import { assetSettingsSchema, normalizeAssetSettings, uploadAssetInputs } from '../../schemas/asset-settings';
import { generateId } from '../../utils/ids';
import { insertAsset } from '../assets/insert-asset';
import { recordUploadEvent } from './upload-record';

export type CompletionOutcome = { completed: true; assetId: string } | { completed: false; status: string };

// The last byte is stored: in one transaction the upload becomes `asset_created` and the asset is
// created with the upload's settings and its ingest queued. The ingest moves the file into the
// asset's folder, so a crash right after this commit loses nothing. If the upload was cancelled
// or timed out meanwhile, nothing is created.
export const completeUpload = async ({ uploadId }: { uploadId: string }): Promise<CompletionOutcome> => {
  const outcome = await getDb().$transaction(async (tx): Promise<CompletionOutcome> => {
    const upload = await tx.upload.findUniqueOrThrow({ where: { id: uploadId } });
    if (upload.status !== 'waiting') return { completed: false, status: upload.status };
    // Validated when the upload was created; parsed again because the stored form is JSON.
    const normalized = normalizeAssetSettings(assetSettingsSchema.parse(JSON.parse(upload.newAssetSettingsJson)), {
      inputUrl: 'forbidden',
    });
    if (!normalized.ok) throw new Error(`stored settings of upload ${uploadId} no longer validate: ${normalized.messages.join('; ')}`);
    const assetId = generateId();
    const claimed = await tx.upload.updateMany({
      where: { id: uploadId, status: 'waiting' },
      data: { status: 'asset_created', assetId, completedAt: new Date() },
    });
    if (claimed.count === 0) return { completed: false, status: 'changed' };
    await recordUploadEvent(tx, 'video.upload.asset_created', await tx.upload.findUniqueOrThrow({ where: { id: uploadId } }));
    await insertAsset(tx, {
      assetId,
      settings: normalized.settings,
      inputs: uploadAssetInputs(normalized.settings.inputs),
      ingestType: 'on_demand_direct_upload',
      uploadId,
      test: upload.test,
    });
    return { completed: true, assetId };
  });
  if (outcome.completed) notifyJobEnqueued();
  return outcome;
};
