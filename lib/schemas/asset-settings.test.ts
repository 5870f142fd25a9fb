import { describe, expect, test } from 'vitest';
import { assetSettingsSchema, normalizeAssetSettings } from './asset-settings';

const normalize = (body: unknown, inputUrl: 'required' | 'forbidden' = 'required') =>
  normalizeAssetSettings(assetSettingsSchema.parse(body), { inputUrl });

const expectProblem = (body: unknown, fragment: RegExp) => {
  const result = normalize(body);
  expect(result.ok).toBe(false);
  if (!result.ok) expect(result.messages.join('\n')).toMatch(fragment);
};

describe('normalizeAssetSettings', () => {
  test('accepts the deprecated string forms and defaults to smart/1080p', () => {
    const result = normalize({ input: 'https://example.com/a.mp4', playback_policy: 'public' });
    expect(result).toEqual({
      ok: true,
      settings: expect.objectContaining({
        primaryInputUrl: 'https://example.com/a.mp4',
        playbackPolicies: ['public'],
        encodingTier: 'smart',
        maxResolutionTier: '1080p',
        test: false,
      }),
    });
  });

  test('accepts inputs + playback_policies arrays and video_quality', () => {
    const result = normalize({
      inputs: [{ url: 'https://example.com/a.mp4' }],
      playback_policies: ['public', 'signed', 'public'],
      video_quality: 'basic',
    });
    expect(result.ok && result.settings.playbackPolicies).toEqual(['public', 'signed']);
    expect(result.ok && result.settings.encodingTier).toBe('baseline');
  });

  test('maps video_quality plus to smart and accepts a matching encoding_tier', () => {
    const result = normalize({ input: 'https://e.com/a', video_quality: 'plus', encoding_tier: 'smart' });
    expect(result.ok && result.settings.encodingTier).toBe('smart');
  });

  test.each([
    [{ input: 'https://e.com/a', encoding_tier: 'baseline', max_resolution_tier: '2160p' }, /limited to 1080p/],
    [{ input: 'https://e.com/a', video_quality: 'basic', max_resolution_tier: '1440p' }, /limited to 1080p/],
    [{ input: 'https://e.com/a', encoding_tier: 'baseline', mp4_support: 'standard' }, /not available with video_quality "basic"/],
    [{ input: 'https://e.com/a', mp4_support: 'capped-1080p' }, /mp4_support.*not supported yet/],
    [{ input: 'https://e.com/a', master_access: 'temporary' }, /master_access/],
    [{ input: 'https://e.com/a', playback_policy: 'drm' }, /drm/],
    [{ input: 'https://e.com/a', video_quality: 'premium' }, /premium/],
    [{ input: 'https://e.com/a', encoding_tier: 'baseline', video_quality: 'plus' }, /disagree/],
    [{ input: 'https://e.com/a', inputs: [{ url: 'https://e.com/b' }] }, /either inputs or input/],
    [{}, /at least one input/],
    [{ inputs: [{ url: 'https://e.com/a' }, { url: 'https://e.com/s.vtt', type: 'text' }] }, /additional inputs/],
    [{ inputs: [{ url: 'mux://assets/abc' }] }, /clipping/],
  ])('rejects %j', (body, fragment) => expectProblem(body, fragment));

  test('an upload leaves the input url out, and may not set one', () => {
    expect(normalize({ playback_policy: ['public'] }, 'forbidden').ok).toBe(true);
    expect(normalize({ inputs: [{ passthrough: 'x' }] }, 'forbidden').ok).toBe(true);
    const withUrl = normalize({ inputs: [{ url: 'https://e.com/a.mp4' }] }, 'forbidden');
    expect(withUrl.ok).toBe(false);
    if (!withUrl.ok) expect(withUrl.messages.join('\n')).toMatch(/must not be set for a direct upload/);
  });

  test('the schema rejects unknown enum values and wrong types with the field path', () => {
    const result = assetSettingsSchema.safeParse({ playback_policies: ['publik'], test: 'yes', meta: { title: 5 } });
    expect(result.success).toBe(false);
    const paths = result.error?.issues.map((issue) => issue.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['test', 'meta.title']));
    expect(paths?.some((path) => path.startsWith('playback_policies'))).toBe(true);
  });
});
