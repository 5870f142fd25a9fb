import { describe, expect, test } from 'vitest';
import { assetSettingsSchema, normalizeAssetSettings } from './asset-settings';
import { createUploadSchema, echoedAssetSettings, serializeUpload, type UploadRecord } from './upload';

const echo = (body: unknown) => {
  const parsed = assetSettingsSchema.parse(body);
  const normalized = normalizeAssetSettings(parsed, { inputUrl: 'forbidden' });
  if (!normalized.ok) throw new Error(normalized.messages.join('; '));
  return echoedAssetSettings(parsed, normalized.settings);
};

const upload = (overrides: Partial<UploadRecord> = {}): UploadRecord => ({
  id: 'up1',
  status: 'waiting',
  timeoutSeconds: 3600,
  corsOrigin: '*',
  newAssetSettingsJson: JSON.stringify({ playback_policies: ['public'] }),
  test: false,
  assetId: null,
  errorType: null,
  errorMessage: null,
  createdAt: new Date(0),
  ...overrides,
});

describe('echoedAssetSettings', () => {
  test('spells the playback policy the current way, as Mux echoes it', () => {
    expect(echo({ playback_policy: 'public', video_quality: 'basic' })).toEqual({
      playback_policies: ['public'],
      video_quality: 'basic',
    });
  });

  test('the echo validates again as asset settings (it is what creates the asset later)', () => {
    const echoed = echo({ input: [{ passthrough: 'first' }], playback_policy: ['signed'], meta: { title: 'T' } });
    expect(echoed).toEqual({ inputs: [{ passthrough: 'first' }], playback_policies: ['signed'], meta: { title: 'T' } });
    expect(normalizeAssetSettings(assetSettingsSchema.parse(echoed), { inputUrl: 'forbidden' }).ok).toBe(true);
  });
});

describe('createUploadSchema', () => {
  test.each([59, 604801, 100.5])('rejects timeout %s', (timeout) => {
    expect(createUploadSchema.safeParse({ timeout }).success).toBe(false);
  });

  test('accepts the documented range and an empty body', () => {
    expect(createUploadSchema.safeParse({ timeout: 60 }).success).toBe(true);
    expect(createUploadSchema.safeParse({ timeout: 604800 }).success).toBe(true);
    expect(createUploadSchema.safeParse({}).success).toBe(true);
  });
});

describe('serializeUpload', () => {
  test('hands out the url only while waiting', () => {
    expect(serializeUpload(upload(), { url: 'http://u' })).toMatchObject({ status: 'waiting', url: 'http://u' });
    const done = serializeUpload(upload({ status: 'asset_created', assetId: 'a1' }), { url: 'http://u' });
    expect(done).not.toHaveProperty('url');
    expect(done).toMatchObject({ asset_id: 'a1' });
  });

  test('an errored upload carries error.message (singular, unlike assets)', () => {
    const errored = serializeUpload(upload({ status: 'errored', errorType: 'invalid_input', errorMessage: 'too big' }), { url: undefined });
    expect(errored.error).toEqual({ type: 'invalid_input', message: 'too big' });
  });
});
