import { describe, expect, test } from 'vitest';
import {
  createLiveStreamSchema,
  mergeRecordingSettings,
  normalizeCreateLiveStream,
  normalizeUpdateLiveStream,
  recordingAssetSettings,
  serializeLiveStream,
  updateLiveStreamSchema,
  withoutStaticRenditions,
  type LiveStreamRecord,
} from './live-stream';

const create = (body: unknown) => normalizeCreateLiveStream(createLiveStreamSchema.parse(body));

const created = (body: unknown) => {
  const outcome = create(body);
  if (!outcome.ok) throw new Error(outcome.messages.join('; '));
  return outcome.value;
};

const problems = (body: unknown): string[] => {
  const outcome = create(body);
  if (outcome.ok) throw new Error(`expected a refusal for ${JSON.stringify(body)}`);
  return outcome.messages;
};

const idleStream: Parameters<typeof normalizeUpdateLiveStream>[0] = { status: 'idle', latencyMode: 'standard', test: false, newAssetSettingsJson: null };

describe('normalizeCreateLiveStream', () => {
  test('Mux defaults: standard latency, 60 s reconnect window, 12 h continuous duration, no recording settings', () => {
    expect(created({})).toEqual({
      playbackPolicies: [],
      simulcastTargets: [],
      latencyMode: 'standard',
      reconnectWindow: 60,
      maxContinuousDuration: 43200,
      useSlateForStandardLatency: false,
      reconnectSlateUrl: null,
      generatedSubtitlesJson: null,
      embeddedSubtitlesJson: null,
      audioOnly: false,
      passthrough: null,
      metaJson: null,
      test: false,
      newAssetSettingsJson: null,
    });
  });

  test('reduced and low latency default to no reconnect window; an explicit one (a float) is kept', () => {
    expect(created({ latency_mode: 'reduced' }).reconnectWindow).toBe(0);
    expect(created({ latency_mode: 'low' }).reconnectWindow).toBe(0);
    expect(created({ latency_mode: 'low', reconnect_window: 12.5 })).toMatchObject({ latencyMode: 'low', reconnectWindow: 12.5 });
  });

  test('the deprecated booleans map to latency_mode, and may not contradict it', () => {
    expect(created({ reduced_latency: true })).toMatchObject({ latencyMode: 'reduced', reconnectWindow: 0 });
    expect(created({ low_latency: true, latency_mode: 'low' }).latencyMode).toBe('low');
    expect(created({ low_latency: false, latency_mode: 'reduced' }).latencyMode).toBe('reduced');
    expect(problems({ low_latency: true, latency_mode: 'standard' })).toEqual([expect.stringMatching(/latency_mode "standard" disagrees/)]);
    expect(problems({ low_latency: true, reduced_latency: true })).toEqual([expect.stringMatching(/cannot both be true/)]);
  });

  test('playback policies: an array or a single string, the deprecated name too, deduplicated', () => {
    expect(created({ playback_policies: 'public' }).playbackPolicies).toEqual(['public']);
    expect(created({ playback_policy: ['signed'], playback_policies: ['public', 'signed'] }).playbackPolicies).toEqual(['public', 'signed']);
    expect(created({ advanced_playback_policies: [{ policy: 'signed' }] }).playbackPolicies).toEqual(['signed']);
    expect(problems({ advanced_playback_policies: [{ policy: 'drm', drm_configuration_id: 'x' }] })).toEqual([expect.stringMatching(/"drm" is not supported/)]);
  });

  test('new_asset_settings are stored as Mux echoes them', () => {
    const value = created({ new_asset_settings: { playback_policy: 'public', static_renditions: [{ resolution: 'highest' }], meta: { title: 'Rec' } } });
    expect(JSON.parse(value.newAssetSettingsJson!)).toEqual({ playback_policies: ['public'], static_renditions: [{ resolution: 'highest' }], meta: { title: 'Rec' } });
    expect(recordingAssetSettings(value.newAssetSettingsJson!)).toMatchObject({
      playbackPolicies: ['public'],
      encodingTier: 'smart',
      staticRenditions: [{ resolution: 'highest' }],
      meta: { title: 'Rec' },
    });
  });

  test.each([{ encoding_tier: 'baseline' }, { video_quality: 'basic' }])('live is smart tier only: %o is refused', (settings) => {
    expect(problems({ new_asset_settings: { playback_policies: ['public'], ...settings } })).toEqual([expect.stringMatching(/smart tier only/)]);
  });

  test.each([{ video_quality: 'premium' }, { encoding_tier: 'premium' }] as const)('%o gives premium recordings', (settings) => {
    const value = created({ new_asset_settings: { playback_policies: ['public'], ...settings } });
    expect(JSON.parse(value.newAssetSettingsJson!)).toEqual({ playback_policies: ['public'], ...settings });
    expect(recordingAssetSettings(value.newAssetSettingsJson!)).toMatchObject({ encodingTier: 'premium' });
  });

  test('asset options a recording cannot have are refused by name', () => {
    const messages = problems({ new_asset_settings: { inputs: [{ url: 'https://example.com/logo.png', overlay_settings: {} }], copy_overlays: false } });
    expect(messages).toEqual([expect.stringMatching(/inputs, copy_overlays cannot be applied to a live stream's recording/)]);
    expect(problems({ new_asset_settings: { normalize_audio: true } })).toEqual(['new_asset_settings: normalize_audio: audio normalisation is not supported yet']);
    expect(problems({ new_asset_settings: { mp4_support: 'standard', static_renditions: [{ resolution: 'highest' }] } })).toEqual([
      expect.stringMatching(/^new_asset_settings: mp4_support and static_renditions cannot be used together/),
    ]);
  });

  test('features Keyframe does not have are refused, each with its own message; empty lists ask for nothing', () => {
    const messages = problems({
      embedded_subtitles: [{ language_channel: 'cc1' }, { language_channel: 'cc1' }],
      generated_subtitles: [{ language_code: 'fr' }],
    });
    expect(messages).toEqual([expect.stringMatching(/^generated_subtitles: language_code "fr" .*English only/), 'embedded_subtitles: language_channel cc1 is listed twice']);
    expect(problems({ generated_subtitles: [{ transcription_vocabulary_ids: ['v1'] }] })).toEqual([expect.stringMatching(/transcription_vocabulary_ids .*not supported/)]);
    expect(create({ embedded_subtitles: [], generated_subtitles: [] }).ok).toBe(true);
  });

  test('embedded_subtitles: channel cc1 and a name from the language unless given', () => {
    const created = create({ embedded_subtitles: [{}, { name: 'Spanish', language_code: 'es', language_channel: 'cc3', passthrough: 'p' }] });
    expect(created.ok && JSON.parse(created.value.embeddedSubtitlesJson!)).toEqual([
      { name: 'English CC', language_code: 'en', language_channel: 'cc1' },
      { name: 'Spanish', language_code: 'es', language_channel: 'cc3', passthrough: 'p' },
    ]);
  });

  test('generated_subtitles: English, one track, stored with its name and language filled in', () => {
    const created = create({ generated_subtitles: [{ passthrough: 'p' }] });
    expect(created.ok && JSON.parse(created.value.generatedSubtitlesJson!)).toEqual([{ name: 'English (generated)', language_code: 'en', passthrough: 'p' }]);
    const named = create({ generated_subtitles: [{ name: 'Captions', language_code: 'en-US' }] });
    expect(named.ok && JSON.parse(named.value.generatedSubtitlesJson!)).toEqual([{ name: 'Captions', language_code: 'en-US' }]);
    const none = create({});
    expect(none.ok && none.value.generatedSubtitlesJson).toBeNull();
  });

  test('simulcast targets are taken in the order sent, as stored values', () => {
    expect(
      created({
        simulcast_targets: [
          { url: 'rtmp://a.example/app', stream_key: 'k', passthrough: 'first' },
          { url: 'SRT://b.example:9000?streamid=s&passphrase=p' },
        ],
      }).simulcastTargets,
    ).toEqual([
      { url: 'rtmp://a.example/app', streamKey: 'k', passthrough: 'first' },
      { url: 'srt://b.example:9000?streamid=s&passphrase=p', streamKey: null, passthrough: null },
    ]);
  });

  test('a bad simulcast target is a 400 naming its place in the list', () => {
    const parsed = createLiveStreamSchema.safeParse({ simulcast_targets: [{ url: 'rtmp://a.example/app' }, { url: 'https://b.example/app' }] });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([['simulcast_targets.1.url', 'must be an rtmp://, rtmps:// or srt:// URL']]);
    expect(createLiveStreamSchema.safeParse({ simulcast_targets: { url: 'rtmp://a.example/app' } }).error?.issues[0]?.message).toMatch(/must be an array/);
  });

  test('srt_passphrase cannot be chosen: the server generates it', () => {
    expect(problems({ srt_passphrase: 'my own passphrase' })).toEqual([
      'srt_passphrase: the SRT passphrase is generated by the server (read it from the live stream); it cannot be set',
    ]);
  });

  test('test streams are cut at five minutes', () => {
    expect(created({ test: true }).maxContinuousDuration).toBe(300);
    expect(created({ test: true, max_continuous_duration: 120 }).maxContinuousDuration).toBe(120);
    expect(created({ max_continuous_duration: 600 }).maxContinuousDuration).toBe(600);
  });

  test('slate settings, passthrough, meta and audio_only are kept', () => {
    expect(
      created({
        use_slate_for_standard_latency: true,
        reconnect_slate_url: 'https://example.com/slate.png',
        passthrough: 'p',
        meta: { title: 'Show' },
        audio_only: true,
      }),
    ).toMatchObject({ useSlateForStandardLatency: true, reconnectSlateUrl: 'https://example.com/slate.png', passthrough: 'p', metaJson: '{"title":"Show"}', audioOnly: true });
  });
});

describe('createLiveStreamSchema ranges', () => {
  test.each([
    { reconnect_window: -1 },
    { reconnect_window: 1800.5 },
    { max_continuous_duration: 59 },
    { max_continuous_duration: 43201 },
    { max_continuous_duration: 100.5 },
    { latency_mode: 'ultra' },
    { passthrough: 'x'.repeat(256) },
    { meta: { title: 'x'.repeat(513) } },
    { reconnect_slate_url: 'ftp://example.com/slate.png' },
  ])('refuses %o', (body) => {
    expect(createLiveStreamSchema.safeParse(body).success).toBe(false);
  });

  test('accepts the bounds', () => {
    for (const body of [{ reconnect_window: 0 }, { reconnect_window: 1800 }, { max_continuous_duration: 60 }, { max_continuous_duration: 43200 }, { meta: { title: 'x'.repeat(512) } }]) {
      expect(createLiveStreamSchema.safeParse(body).success, JSON.stringify(body)).toBe(true);
    }
  });
});

describe('normalizeUpdateLiveStream', () => {
  const update = (stream: typeof idleStream, body: unknown) => normalizeUpdateLiveStream(stream, updateLiveStreamSchema.parse(body));

  test('only what was sent changes; "" clears passthrough and the slate URL', () => {
    expect(update(idleStream, { reconnect_window: 30, passthrough: '', reconnect_slate_url: '' })).toEqual({
      ok: true,
      value: { reconnectWindow: 30, passthrough: null, reconnectSlateUrl: null },
    });
  });

  test('latency_mode changes only between broadcasts', () => {
    expect(update(idleStream, { latency_mode: 'low' })).toEqual({ ok: true, value: { latencyMode: 'low' } });
    expect(update({ ...idleStream, status: 'active' }, { latency_mode: 'low' })).toEqual({
      ok: false,
      messages: [expect.stringMatching(/^latency_mode: cannot be changed while the live stream is active/)],
    });
    // Sending the mode it already has is not a change.
    expect(update({ ...idleStream, status: 'active' }, { latency_mode: 'standard' }).ok).toBe(true);
  });

  test('a test stream stays capped at five minutes', () => {
    expect(update({ ...idleStream, test: true }, { max_continuous_duration: 3600 })).toEqual({ ok: true, value: { maxContinuousDuration: 300 } });
  });

  test('new_asset_settings: the documented subset merges into the stored settings', () => {
    const stream = { ...idleStream, newAssetSettingsJson: JSON.stringify({ playback_policies: ['public'], meta: { title: 'old' } }) };
    const outcome = update(stream, { new_asset_settings: { master_access: 'temporary', meta: { title: 'new' } } });
    expect(outcome.ok && JSON.parse(outcome.value.newAssetSettingsJson!)).toEqual({
      playback_policies: ['public'],
      master_access: 'temporary',
      meta: { title: 'new' },
    });
  });

  test('new_asset_settings: video_quality premium is stored and replaces a stored encoding_tier', () => {
    const outcome = update(idleStream, { new_asset_settings: { video_quality: 'premium' } });
    expect(outcome.ok && JSON.parse(outcome.value.newAssetSettingsJson!)).toEqual({ video_quality: 'premium' });
    const smart = { ...idleStream, newAssetSettingsJson: JSON.stringify({ playback_policies: ['public'], encoding_tier: 'smart' }) };
    const premium = update(smart, { new_asset_settings: { video_quality: 'premium' } });
    expect(premium.ok && JSON.parse(premium.value.newAssetSettingsJson!)).toEqual({ playback_policies: ['public'], video_quality: 'premium' });
    expect(premium.ok && recordingAssetSettings(premium.value.newAssetSettingsJson!).encodingTier).toBe('premium');
  });

  test('new_asset_settings: basic quality, mp4_support beside static_renditions and other keys are refused', () => {
    const withStatic = { ...idleStream, newAssetSettingsJson: JSON.stringify({ static_renditions: [{ resolution: 'highest' }] }) };
    expect(update(idleStream, { new_asset_settings: { video_quality: 'basic' } })).toMatchObject({ ok: false, messages: [expect.stringMatching(/smart tier only/)] });
    expect(update(withStatic, { new_asset_settings: { mp4_support: 'capped-1080p' } })).toMatchObject({ ok: false, messages: [expect.stringMatching(/cannot be used together/)] });
    expect(updateLiveStreamSchema.safeParse({ new_asset_settings: { playback_policies: ['signed'] } }).success).toBe(false);
  });
});

describe('static renditions of the recording settings', () => {
  test('set replaces the list, clearing removes it, and both keep the other settings', () => {
    const current = JSON.stringify({ playback_policies: ['public'], static_renditions: [{ resolution: 'highest' }] });
    const set = mergeRecordingSettings(current, { static_renditions: [{ resolution: 'audio-only' }, { resolution: '720p' }] });
    expect(set.ok && JSON.parse(set.value)).toEqual({ playback_policies: ['public'], static_renditions: [{ resolution: 'audio-only' }, { resolution: '720p' }] });
    expect(JSON.parse(withoutStaticRenditions(current)!)).toEqual({ playback_policies: ['public'] });
    expect(withoutStaticRenditions(null)).toBeNull();
    expect(mergeRecordingSettings(null, { static_renditions: [{ resolution: 'highest' }, { resolution: '720p' }] })).toMatchObject({ ok: false });
  });
});

describe('serializeLiveStream', () => {
  const record: LiveStreamRecord = {
    id: 'L'.repeat(44),
    streamKey: '831b5bde-cd8a-5bc4-115d-4ba34b19f481',
    srtPassphrase: '0b3c3f1e5a6d4c2b9e8f7a6b5c4d3e2f',
    status: 'idle',
    latencyMode: 'standard',
    reconnectWindow: 60,
    maxContinuousDuration: 43200,
    useSlateForStandardLatency: false,
    reconnectSlateUrl: null,
    generatedSubtitlesJson: null,
    embeddedSubtitlesJson: null,
    audioOnly: false,
    passthrough: null,
    metaJson: null,
    test: false,
    newAssetSettingsJson: '{"playback_policies":["public"]}',
    activeAssetId: null,
    recentAssetIdsJson: '[]',
    connectedAt: null,
    ingestProtocol: null,
    createdAt: new Date('2021-01-06T12:54:14.900Z'),
    playbackIds: [{ id: 'P'.repeat(44), policy: 'public' }],
    simulcastTargets: [],
  };

  test('an idle stream as in Mux’s create example', () => {
    expect(serializeLiveStream(record)).toEqual({
      id: record.id,
      created_at: '1609937654',
      stream_key: record.streamKey,
      srt_passphrase: record.srtPassphrase,
      status: 'idle',
      playback_ids: [{ id: 'P'.repeat(44), policy: 'public' }],
      new_asset_settings: { playback_policies: ['public'] },
      reconnect_window: 60,
      use_slate_for_standard_latency: false,
      latency_mode: 'standard',
      low_latency: false,
      reduced_latency: false,
      max_continuous_duration: 43200,
    });
  });

  test('an active broadcast shows its asset, the recent ones and the protocol', () => {
    const json = serializeLiveStream({
      ...record,
      status: 'active',
      activeAssetId: 'A2',
      recentAssetIdsJson: '["A1","A2"]',
      connectedAt: new Date(),
      test: true,
      audioOnly: true,
      metaJson: '{"title":"Show"}',
    });
    expect(json).toMatchObject({ status: 'active', active_asset_id: 'A2', recent_asset_ids: ['A1', 'A2'], active_ingest_protocol: 'rtmp', test: true, audio_only: true, meta: { title: 'Show' } });
    expect(serializeLiveStream({ ...record, status: 'active', connectedAt: new Date(), ingestProtocol: 'rtmps' }).active_ingest_protocol).toBe('rtmps');
    expect(serializeLiveStream({ ...record, status: 'active', connectedAt: new Date(), ingestProtocol: 'srt' }).active_ingest_protocol).toBe('srt');
    expect(serializeLiveStream({ ...record, status: 'idle', connectedAt: null, ingestProtocol: 'rtmps' })).not.toHaveProperty('active_ingest_protocol');
  });

  test('simulcast targets are listed as Mux shows them, and left out when there are none', () => {
    const json = serializeLiveStream({
      ...record,
      simulcastTargets: [
        { id: 'S1', url: 'rtmp://a.example/app', streamKey: 'k', passthrough: null, status: 'broadcasting', errorSeverity: null },
        { id: 'S2', url: 'srt://b.example:9000?streamid=s', streamKey: null, passthrough: 'p', status: 'errored', errorSeverity: 'normal' },
      ],
    });
    expect(json.simulcast_targets).toEqual([
      { id: 'S1', status: 'broadcasting', url: 'rtmp://a.example/app', stream_key: 'k' },
      { id: 'S2', status: 'errored', url: 'srt://b.example:9000?streamid=s', passthrough: 'p', error_severity: 'normal' },
    ]);
    expect(serializeLiveStream(record)).not.toHaveProperty('simulcast_targets');
  });

  test('a stream without an SRT passphrase leaves the field out', () => {
    expect(serializeLiveStream({ ...record, srtPassphrase: null })).not.toHaveProperty('srt_passphrase');
  });
});

