import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { ApiError } from '../../http/api-error';
import { enqueueJob } from '../../jobs/queue';
import type { AssetRecord } from '../../schemas/asset';
import { normalizeAssetSettings, type AssetSettingsBody } from '../../schemas/asset-settings';
import { generateId } from '../../utils/ids';
import { assetInclude } from './asset-record';
import { validateInputUrl } from './validate-input-url';

// POST /video/v1/assets: records the asset as `preparing` and queues its ingest.
export const createAsset = async ({ body }: { body: AssetSettingsBody }): Promise<AssetRecord> => {
  const env = getEnv();
  const normalized = normalizeAssetSettings(body, { requireInputUrl: true });
  if (!normalized.ok) throw new ApiError('invalid_parameters', normalized.messages);
  const { settings } = normalized;
  const inputUrl = await validateInputUrl(settings.primaryInputUrl ?? '', { allowPrivate: env.allowPrivateInputUrls });
  const inputs = [{ ...settings.inputs[0], url: inputUrl }];

  const db = getDb();
  const assetId = generateId();
  const asset = await db.asset.create({
    data: {
      id: assetId,
      status: 'preparing',
      encodingTier: settings.encodingTier,
      maxResolutionTier: settings.maxResolutionTier,
      ingestType: 'on_demand_url',
      inputsJson: JSON.stringify(inputs),
      passthrough: settings.passthrough ?? null,
      metaJson: settings.meta ? JSON.stringify(settings.meta) : null,
      test: settings.test,
      playbackIds: { create: settings.playbackPolicies.map((policy) => ({ id: generateId(), policy })) },
    },
    include: assetInclude,
  });
  await enqueueJob({ name: 'ingest-asset-job', payload: { assetId }, maxAttempts: 3, dedupeKey: `ingest:${assetId}` });
  return asset;
};
