import { z } from 'zod';
import { assetSettingsSchema, toStoredInput, type AssetSettingsBody, type NormalizedAssetSettings } from './asset-settings';

// Direct uploads on the wire (mux-api.md §2): the create body, and the Upload object.

export const UPLOAD_TIMEOUT_DEFAULT_SECONDS = 3600;
export const UPLOAD_TIMEOUT_MIN_SECONDS = 60;
export const UPLOAD_TIMEOUT_MAX_SECONDS = 7 * 24 * 3600;

export const createUploadSchema = z.object({
  new_asset_settings: assetSettingsSchema.optional(),
  cors_origin: z.string().max(2048, { error: 'must be at most 2048 characters' }).optional(),
  timeout: z
    .number({ error: 'must be a number of seconds' })
    .int({ error: 'must be a whole number of seconds' })
    .min(UPLOAD_TIMEOUT_MIN_SECONDS, { error: `must be at least ${UPLOAD_TIMEOUT_MIN_SECONDS} seconds` })
    .max(UPLOAD_TIMEOUT_MAX_SECONDS, { error: `must be at most ${UPLOAD_TIMEOUT_MAX_SECONDS} seconds (7 days)` })
    .optional(),
  test: z.boolean().optional(),
});

export type CreateUploadBody = z.infer<typeof createUploadSchema>;

export type UploadStatus = 'waiting' | 'asset_created' | 'errored' | 'cancelled' | 'timed_out';

export type UploadRecord = {
  id: string;
  status: string;
  timeoutSeconds: number;
  corsOrigin: string | null;
  newAssetSettingsJson: string;
  test: boolean;
  assetId: string | null;
  errorType: string | null;
  errorMessage: string | null;
  createdAt: Date;
};

// What Mux echoes back: the settings as sent, with the policy spelled the current way
// (`playback_policy: "public"` comes back as `playback_policies: ["public"]`).
export const echoedAssetSettings = (body: AssetSettingsBody, settings: NormalizedAssetSettings): Record<string, unknown> => {
  const { playback_policy: _policy, advanced_playback_policies: _advanced, input, inputs, ...rest } = body;
  // Stored too, and parsed again when the upload completes: watermark settings in their wire form.
  const listed = inputs ?? (typeof input === 'string' ? undefined : input);
  return {
    ...rest,
    ...(listed !== undefined && { inputs: listed.map(toStoredInput) }),
    ...(settings.playbackPolicies.length > 0 && { playback_policies: settings.playbackPolicies }),
  };
};

// `url` is only handed out while the upload can still receive bytes.
export const serializeUpload = (upload: UploadRecord, { url }: { url: string | undefined }) => ({
  id: upload.id,
  status: upload.status as UploadStatus,
  ...(upload.status === 'waiting' && url !== undefined && { url }),
  timeout: upload.timeoutSeconds,
  ...(upload.corsOrigin !== null && { cors_origin: upload.corsOrigin }),
  new_asset_settings: JSON.parse(upload.newAssetSettingsJson) as Record<string, unknown>,
  ...(upload.assetId !== null && { asset_id: upload.assetId }),
  ...(upload.status === 'errored' && {
    error: { type: upload.errorType ?? 'invalid_input', message: upload.errorMessage ?? 'The upload failed' },
  }),
  ...(upload.test && { test: true }),
});

export type UploadJson = ReturnType<typeof serializeUpload>;
