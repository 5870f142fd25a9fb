import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { getDb } from '../../db/client';
import { setUpTestInstallation, type TestInstallation } from '../../db/test-support/test-installation';
import { assetSettingsSchema, normalizeAssetSettings, type EncodingTier } from '../../schemas/asset-settings';
import { resolveClip } from './resolve-clip';

// A clip's tier on a real SQLite database: `smart` (plus) whatever its source's tier and a `basic`
// asked for, `premium` only when the clip request itself asks for premium.

let installation: TestInstallation | undefined;

const SOURCES: Record<EncodingTier, string> = { baseline: 'B'.repeat(44), smart: 'S'.repeat(44), premium: 'P'.repeat(44) };

beforeAll(async () => {
  installation = await setUpTestInstallation('resolve-clip');
  for (const [encodingTier, id] of Object.entries(SOURCES)) {
    await getDb().asset.create({ data: { id, status: 'ready', encodingTier, inputsJson: '[]', durationSeconds: 10, maxResolutionTier: '1080p' } });
  }
});

afterAll(async () => {
  await installation?.tearDown();
});

const clipTier = async (source: EncodingTier, quality: Record<string, string> = {}): Promise<EncodingTier> => {
  const body = assetSettingsSchema.parse({ inputs: [{ url: `mux://assets/${SOURCES[source]}`, start_time: 1, end_time: 3 }], ...quality });
  const normalized = normalizeAssetSettings(body, { inputUrl: 'required' });
  if (!normalized.ok || !normalized.settings.clip) throw new Error(`expected a clip: ${JSON.stringify(normalized)}`);
  const { settings } = await resolveClip(body, normalized.settings, normalized.settings.clip);
  return settings.encodingTier;
};

describe('resolveClip: the clip tier', () => {
  test.each(['baseline', 'smart', 'premium'] as const)('a clip of a %s source is smart when nothing or basic/plus is asked for', async (source) => {
    expect(await clipTier(source)).toBe('smart');
    expect(await clipTier(source, { video_quality: 'basic' })).toBe('smart');
    expect(await clipTier(source, { encoding_tier: 'baseline' })).toBe('smart');
    expect(await clipTier(source, { video_quality: 'plus' })).toBe('smart');
  });

  test.each(['baseline', 'smart', 'premium'] as const)('a clip of a %s source is premium when the clip asks for premium', async (source) => {
    expect(await clipTier(source, { video_quality: 'premium' })).toBe('premium');
    expect(await clipTier(source, { encoding_tier: 'premium' })).toBe('premium');
  });
});
