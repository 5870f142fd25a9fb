import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { ApiError } from '../../errors/api-error';
import { notifyJobEnqueued } from '../../jobs/signals';
import type { AssetRecord } from '../../schemas/asset';
import {
  normalizeAssetSettings,
  toStoredInput,
  type AssetSettingsBody,
  type ClipSettings,
  type NormalizedAssetSettings,
} from '../../schemas/asset-settings';
import { resolveClip } from '../clips/resolve-clip';
import { insertAsset } from './insert-asset';
import { validateInputs } from '../inputs/validate-input-url';

// POST /video/v1/assets: records the asset as `preparing` and queues its ingest.
export const createAsset = async ({ body }: { body: AssetSettingsBody }): Promise<AssetRecord> => {
  const env = getEnv();
  const normalized = normalizeAssetSettings(body, { inputUrl: 'required' });
  if (!normalized.ok) throw new ApiError('invalid_parameters', normalized.messages);
  if (normalized.settings.clip) return createClip(body, normalized.settings, normalized.settings.clip);
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

// A clip of another asset (mux://assets/{id}): checked against its source, then ingested like any
// asset, its source being the cut (see cut-clip.ts).
const createClip = async (body: AssetSettingsBody, normalized: NormalizedAssetSettings, clip: ClipSettings): Promise<AssetRecord> => {
  const [clipInput, ...watermarks] = normalized.inputs;
  // The clip's own watermark images pass the same guard as any input URL.
  const checked = await validateInputs(watermarks, { allowPrivate: getEnv().allowPrivateInputUrls, fieldPrefix: '' });
  const { settings, inputs } = await resolveClip(body, { ...normalized, inputs: [clipInput!, ...checked] }, clip);
  const asset = await getDb().$transaction((tx) => insertAsset(tx, { settings, inputs, ingestType: 'on_demand_clip', test: settings.test }));
  notifyJobEnqueued();
  return asset;
};
