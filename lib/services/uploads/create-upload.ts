import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { ApiError } from '../../errors/api-error';
import { normalizeAssetSettings } from '../../schemas/asset-settings';
import { echoedAssetSettings, UPLOAD_TIMEOUT_DEFAULT_SECONDS, type CreateUploadBody } from '../../schemas/upload';
import { generateId } from '../../utils/ids';
import { validateInputs } from '../inputs/validate-input-url';
import { recordUploadEvent, type StoredUpload } from './upload-record';

// POST /video/v1/uploads: a `waiting` upload whose URL accepts the file until `timeout` passes.
// The asset settings are checked now, so a bad setting fails here rather than after the bytes.
export const createUpload = async ({ body }: { body: CreateUploadBody }): Promise<StoredUpload> => {
  const assetSettings = body.new_asset_settings ?? {};
  const normalized = normalizeAssetSettings(assetSettings, { inputUrl: 'forbidden' });
  if (!normalized.ok) throw new ApiError('invalid_parameters', normalized.messages.map((message) => `new_asset_settings: ${message}`));
  // Watermark image URLs pass the same guard as an asset's input URL, now rather than at ingest.
  await validateInputs(normalized.settings.inputs, { allowPrivate: getEnv().allowPrivateInputUrls, fieldPrefix: 'new_asset_settings.' });
  const timeoutSeconds = body.timeout ?? UPLOAD_TIMEOUT_DEFAULT_SECONDS;
  const createdAt = new Date();
  return getDb().$transaction(async (tx) => {
    const upload = await tx.upload.create({
      data: {
        id: generateId(),
        status: 'waiting',
        timeoutSeconds,
        corsOrigin: body.cors_origin ?? null,
        newAssetSettingsJson: JSON.stringify(echoedAssetSettings(assetSettings, normalized.settings)),
        test: body.test ?? normalized.settings.test,
        createdAt,
        expiresAt: new Date(createdAt.getTime() + timeoutSeconds * 1000),
      },
    });
    await recordUploadEvent(tx, 'video.upload.created', upload);
    return upload;
  });
};
