import { describe, expect, test } from 'vitest';
import { assetSettingsSchema, normalizeAssetSettings, videoQualityFor } from './asset-settings';

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
    { video_quality: 'premium' },
    { encoding_tier: 'premium' },
    { video_quality: 'premium', encoding_tier: 'premium' },
  ] as const)('maps %j to the premium tier', (quality) => {
    const result = normalize({ input: 'https://e.com/a', ...quality });
    expect(result.ok && result.settings.encodingTier).toBe('premium');
  });

  test('premium has what plus has: 2160p/1440p, MP4s, extra audio tracks and generated captions', () => {
    const withEverything = (quality: Record<string, string>) =>
      normalize({
        inputs: [
          { url: 'https://e.com/a', generated_subtitles: [{ language_code: 'en' }] },
          { url: 'https://e.com/es.m4a', type: 'audio', language_code: 'es' },
        ],
        max_resolution_tier: '2160p',
        static_renditions: [{ resolution: 'highest' }],
        ...quality,
      });
    expect(withEverything({ video_quality: 'premium' })).toMatchObject({ ok: true, settings: { encodingTier: 'premium', maxResolutionTier: '2160p' } });
    expect(withEverything({ encoding_tier: 'premium' })).toMatchObject({ ok: true, settings: { encodingTier: 'premium', maxResolutionTier: '2160p' } });
    expect(normalize({ input: 'https://e.com/a', video_quality: 'premium', max_resolution_tier: '1440p', mp4_support: 'capped-1080p' })).toMatchObject({
      ok: true,
      settings: { encodingTier: 'premium', maxResolutionTier: '1440p', mp4Support: 'capped-1080p' },
    });
  });

  test('videoQualityFor names each stored tier as video_quality', () => {
    expect(videoQualityFor('baseline')).toBe('basic');
    expect(videoQualityFor('smart')).toBe('plus');
    expect(videoQualityFor('premium')).toBe('premium');
  });

  test.each([
    [{ input: 'https://e.com/a', encoding_tier: 'baseline', max_resolution_tier: '2160p' }, /limited to 1080p/],
    [{ input: 'https://e.com/a', video_quality: 'basic', max_resolution_tier: '1440p' }, /limited to 1080p/],
    [{ input: 'https://e.com/a', encoding_tier: 'baseline', mp4_support: 'standard' }, /not available with video_quality "basic"/],
    [{ input: 'https://e.com/a', mp4_support: 'capped-1080p', static_renditions: [{ resolution: 'highest' }] }, /cannot be used together/],
    [{ input: 'https://e.com/a', video_quality: 'basic', static_renditions: [{ resolution: 'highest' }] }, /static_renditions: MP4 renditions are not available/],
    [{ input: 'https://e.com/a', static_renditions: [{ resolution: 'highest' }, { resolution: '720p' }] }, /cannot be combined/],
    [{ input: 'https://e.com/a', static_renditions: [{ resolution: '720p' }, { resolution: '720p' }] }, /more than once/],
    [{ inputs: [{ url: 'https://e.com/a', start_time: 1 }] }, /only apply when inputs\[0\].url is mux:/],
    [{ inputs: [{ url: 'mux://assets/abc', start_time: 5, end_time: 5 }] }, /greater than start_time/],
    [{ inputs: [{ url: 'mux://assets/abc', start_time: 5, end_time: 5.2 }] }, /at least 0.5 s/],
    [{ inputs: [{ url: 'mux://assets/abc', start_time: -1 }] }, /must not be negative/],
    [{ inputs: [{ url: 'mux://playback/abc' }] }, /mux:\/\/assets\/\{asset_id\}/],
    [{ inputs: [{ url: 'https://e.com/a', overlay_settings: {} }] }, /additional input \(the image\)/],
    [{ inputs: [{ url: 'https://e.com/a' }, { overlay_settings: {} }] }, /needs the URL of a PNG or JPEG/],
    [{ input: 'https://e.com/a', playback_policy: 'drm' }, /drm/],
    [{ input: 'https://e.com/a', encoding_tier: 'smart', video_quality: 'premium' }, /disagree/],
    [{ input: 'https://e.com/a', encoding_tier: 'premium', video_quality: 'plus' }, /disagree/],
    [{ input: 'https://e.com/a', encoding_tier: 'baseline', video_quality: 'plus' }, /disagree/],
    [{ input: 'https://e.com/a', inputs: [{ url: 'https://e.com/b' }] }, /either inputs or input/],
    [{}, /at least one input/],
    [{ inputs: [{ url: 'https://e.com/a' }, { url: 'https://e.com/s.vtt', type: 'text' }] }, /inputs\[1\].language_code: is required for a subtitle input/],
    [{ inputs: [{ url: 'https://e.com/a' }, { type: 'audio', language_code: 'es' }] }, /inputs\[1\].url: an audio track input needs the URL/],
    [{ inputs: [{ url: 'https://e.com/a' }, { url: 'https://e.com/s.vtt', type: 'text', language_code: 'not a language!' }] }, /BCP-47/],
    [{ inputs: [{ url: 'https://e.com/a' }, { url: 'https://e.com/b' }] }, /must be a watermark \(overlay_settings\), an audio track/],
    [{ inputs: [{ url: 'https://e.com/a', generated_subtitles: [{ language_code: 'xx' }] }] }, /generated_subtitles\[0\].language_code: must be one of en, es/],
    [{ inputs: [{ url: 'https://e.com/a' }, { url: 'https://e.com/es.m4a', type: 'audio', language_code: 'es' }], video_quality: 'basic' }, /additional audio tracks are available with video_quality "plus" or "premium" only/],
    [{ inputs: [{ url: 'https://e.com/a', generated_subtitles: [{ language_code: 'en' }] }], video_quality: 'basic' }, /auto-generated captions are available with video_quality "plus" or "premium" only/],
  ])('rejects %j', (body, fragment) => expectProblem(body, fragment));

  test('accepts audio and subtitle inputs and generated subtitles, on both tiers where they apply', () => {
    const smart = normalize({
      inputs: [
        { url: 'https://e.com/a', language_code: 'en', name: 'English', generated_subtitles: [{ language_code: 'en', name: 'English (generated)' }] },
        { url: 'https://e.com/es.m4a', type: 'audio', language_code: 'es', name: 'Español' },
        { url: 'https://e.com/fr.vtt', type: 'text', text_type: 'subtitles', language_code: 'fr', closed_captions: false },
      ],
    });
    expect(smart.ok).toBe(true);
    const basicSubtitles = normalize({
      inputs: [{ url: 'https://e.com/a' }, { url: 'https://e.com/fr.srt', type: 'text', language_code: 'fr' }],
      video_quality: 'basic',
    });
    expect(basicSubtitles.ok).toBe(true);
  });

  test('a direct upload may list only track inputs and generated subtitles: the file is the video', () => {
    const onlyTracks = normalize({ inputs: [{ url: 'https://e.com/fr.vtt', type: 'text', language_code: 'fr' }] }, 'forbidden');
    expect(onlyTracks.ok).toBe(true);
    const captions = normalize({ inputs: [{ generated_subtitles: [{ language_code: 'en' }] }] }, 'forbidden');
    expect(captions.ok).toBe(true);
  });

  test('accepts MP4 settings, master access, a clip and watermarks', () => {
    const result = normalize({
      inputs: [
        { url: 'mux://assets/abc123', start_time: 1.5, end_time: 4 },
        { url: 'https://e.com/logo.png', overlay_settings: { vertical_align: 'bottom', vertical_margin: '2%', width: '80px', opacity: '90%' } },
      ],
      static_renditions: [{ resolution: 'highest', passthrough: 'p' }, { resolution: 'audio-only' }],
      master_access: 'temporary',
      copy_overlays: false,
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.settings.clip).toEqual({ sourceAssetId: 'abc123', startTime: 1.5, endTime: 4 });
    expect(result.settings.staticRenditions).toEqual([{ resolution: 'highest', passthrough: 'p' }, { resolution: 'audio-only' }]);
    expect(result.settings.masterAccess).toBe('temporary');
    expect(result.settings.copyOverlays).toBe(false);
    expect(result.settings.overlays).toEqual([
      {
        url: 'https://e.com/logo.png',
        settings: {
          vertical_align: 'bottom',
          vertical_margin: { value: 2, unit: '%' },
          horizontal_align: 'left',
          width: { value: 80, unit: 'px' },
          opacity: 0.9,
        },
      },
    ]);
  });

  test('an upload may list only watermark inputs', () => {
    const result = normalize({ inputs: [{ url: 'https://e.com/logo.png', overlay_settings: { width: '10%' } }], mp4_support: 'capped-1080p' }, 'forbidden');
    expect(result.ok && result.settings.overlays.map((overlay) => overlay.url)).toEqual(['https://e.com/logo.png']);
    expect(result.ok && result.settings.mp4Support).toBe('capped-1080p');
  });

  test('the schema rejects malformed overlay settings with the field path', () => {
    for (const overlay_settings of [{ width: '10' }, { opacity: '120%' }, { vertical_align: 'center' }, { width: '0%' }, { colour: 'red' }]) {
      const result = assetSettingsSchema.safeParse({ inputs: [{ url: 'https://e.com/a' }, { url: 'https://e.com/l.png', overlay_settings }] });
      expect(result.success, JSON.stringify(overlay_settings)).toBe(false);
      expect(result.error?.issues[0]?.path.slice(0, 3).join('.')).toBe('inputs.1.overlay_settings');
    }
  });

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
