import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { ApiError } from '../../errors/api-error';
import { notifyJobEnqueued } from '../../jobs/signals';
import type { AssetRecord } from '../../schemas/asset';
import { normalizeAssetSettings, toStoredInput, type AssetSettingsBody } from '../../schemas/asset-settings';
import { insertAsset } from './insert-asset';
import { validateInputs } from './validate-input-url';

// POST /video/v1/assets: records the asset as `preparing` and queues its ingest.
export const createAsset = async ({ body }: { body: AssetSettingsBody }): Promise<AssetRecord> => {
  const env = getEnv();
  const normalized = normalizeAssetSettings(body, { inputUrl: 'required' });
  if (!normalized.ok) throw new ApiError('invalid_parameters', normalized.messages);
  const { settings } = normalized;
  // Stored as Mux's inputs: the video first, then the watermarks (see toStoredInput).
  const inputs = (await validateInputs(settings.inputs, { allowPrivate: env.allowPrivateInputUrls })).map(toStoredInput);
  const asset = await getDb().$transaction((tx) =>
    insertAsset(tx, { settings, inputs, ingestType: 'on_demand_url', test: settings.test }),
  );
  // Committed: now the worker can see the ingest job.
  notifyJobEnqueued();
  return asset;
};
