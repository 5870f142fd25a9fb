import { describe, expect, test } from 'vitest';
import { serializeAsset, type AssetRecord } from './asset';
import type { StaticRenditionRecord } from './static-rendition';

const base: AssetRecord = {
  id: 'a'.repeat(44),
  status: 'preparing',
  progressState: 'ingesting',
  encodingTier: 'smart',
  maxResolutionTier: '1080p',
  mp4Support: 'none',
  masterAccess: 'none',
  ingestType: 'on_demand_url',
  passthrough: null,
  metaJson: null,
  test: false,
  uploadId: null,
  durationSeconds: null,
  aspectRatio: null,
  maxFrameRate: null,
  resolutionTier: null,
  tracksJson: null,
  errorType: null,
  errorMessagesJson: null,
  createdAt: new Date('2026-11-22T10:00:00.750Z'),
  sourceAssetId: null,
  masterStatus: null,
  masterExpiresAt: null,
  liveStreamId: null,
  isLive: false,
  recordingTimesJson: null,
  playbackIds: [],
  staticRenditions: [],
  tracks: [],
};

const file = (overrides: Partial<StaticRenditionRecord>): StaticRenditionRecord => ({
  id: 'sr1',
  name: 'highest.mp4',
  resolution: 'highest',
  viaMp4Support: false,
  status: 'preparing',
  width: null,
  height: null,
  bitrate: null,
  fileSize: null,
  passthrough: null,
  ...overrides,
});

describe('serializeAsset', () => {
  test('a preparing asset: created_at is a string of whole seconds, unknown fields are absent', () => {
    const json = serializeAsset(base);
    expect(json).toEqual({
      id: base.id,
      created_at: '1795341600',
      status: 'preparing',
      progress: { state: 'ingesting', progress: 0 },
      max_resolution_tier: '1080p',
      video_quality: 'plus',
      encoding_tier: 'smart',
      ingest_type: 'on_demand_url',
      mp4_support: 'none',
      master_access: 'none',
      normalize_audio: false,
    });
  });

  test('a premium asset is video_quality and encoding_tier "premium"', () => {
    expect(serializeAsset({ ...base, encodingTier: 'premium' })).toMatchObject({ video_quality: 'premium', encoding_tier: 'premium' });
  });

  test('a ready asset carries media fields, playback ids, meta and passthrough', () => {
    const json = serializeAsset({
      ...base,
      status: 'ready',
      progressState: 'completed',
      encodingTier: 'baseline',
      durationSeconds: 17.0633111,
      aspectRatio: '16:9',
      maxFrameRate: 30,
      resolutionTier: '720p',
      tracksJson: JSON.stringify([{ id: 't1', type: 'video', max_width: 640, max_height: 360, max_frame_rate: 30 }]),
      passthrough: 'p',
      metaJson: JSON.stringify({ title: 'London' }),
      test: true,
      playbackIds: [{ id: 'p'.repeat(44), policy: 'public' }],
    });
    expect(json).toMatchObject({
      status: 'ready',
      progress: { state: 'completed', progress: 100 },
      duration: 17.063311,
      aspect_ratio: '16:9',
      max_stored_frame_rate: 30,
      max_stored_resolution: 'SD',
      resolution_tier: '720p',
      video_quality: 'basic',
      encoding_tier: 'baseline',
      playback_ids: [{ id: 'p'.repeat(44), policy: 'public' }],
      passthrough: 'p',
      meta: { title: 'London' },
      test: true,
    });
    expect(json).not.toHaveProperty('errors');
  });

  test('an errored asset reports its errors', () => {
    const json = serializeAsset({
      ...base,
      status: 'errored',
      progressState: 'errored',
      errorType: 'download_failed',
      errorMessagesJson: JSON.stringify(['Failed to download input: the server answered 404 Not Found']),
    });
    expect(json.progress).toEqual({ state: 'errored', progress: -1 });
    expect(json).toMatchObject({
      errors: { type: 'download_failed', messages: ['Failed to download input: the server answered 404 Not Found'] },
    });
  });

  test('static renditions: absent when none; the new API lists every file with its status, legacy files appear once ready', () => {
    expect(serializeAsset(base)).not.toHaveProperty('static_renditions');
    const preparing = serializeAsset({ ...base, staticRenditions: [file({}), file({ id: 'sr2', name: 'audio.m4a', resolution: 'audio-only', status: 'ready', fileSize: 1234n, bitrate: 128000 })] });
    expect(preparing.static_renditions).toEqual({
      status: 'preparing',
      files: [
        { id: 'sr1', type: 'standard', status: 'preparing', resolution: 'highest', name: 'highest.mp4', ext: 'mp4' },
        { id: 'sr2', type: 'standard', status: 'ready', resolution: 'audio-only', resolution_tier: 'audio-only', name: 'audio.m4a', ext: 'm4a', bitrate: 128000, filesize: '1234' },
      ],
    });
    const advanced = serializeAsset({ ...base, staticRenditions: [file({ name: '720p.mp4', resolution: '720p', status: 'ready', width: 1280, height: 720 }), file({ id: 'x', name: '2160p.mp4', resolution: '2160p', status: 'skipped' })] });
    expect(advanced.static_renditions?.status).toBe('ready');
    expect(advanced.static_renditions?.files?.[0]).toMatchObject({ type: 'advanced', resolution_tier: '720p', width: 1280, height: 720 });
    const legacy = serializeAsset({ ...base, mp4Support: 'capped-1080p', staticRenditions: [file({ name: 'capped-1080p.mp4', resolution: 'capped-1080p', viaMp4Support: true })] });
    expect(legacy.static_renditions).toEqual({ status: 'preparing' });
    const legacyReady = serializeAsset({ ...base, staticRenditions: [file({ name: 'capped-1080p.mp4', resolution: 'capped-1080p', viaMp4Support: true, status: 'ready', width: 1920, height: 1080, fileSize: 99n })] });
    expect(legacyReady.static_renditions).toEqual({ status: 'ready', files: [{ name: 'capped-1080p.mp4', ext: 'mp4', width: 1920, height: 1080, filesize: '99' }] });
    const failed = serializeAsset({ ...base, staticRenditions: [file({ status: 'errored' })] });
    expect(failed.static_renditions?.status).toBe('errored');
  });

  test('master: only while temporary; the URL only when the caller supplies one (ready and unexpired)', () => {
    const temporary = { ...base, status: 'ready', masterAccess: 'temporary' };
    expect(serializeAsset(base, { masterUrl: 'https://x/m' })).not.toHaveProperty('master');
    expect(serializeAsset({ ...temporary, masterStatus: 'preparing' }).master).toEqual({ status: 'preparing' });
    expect(serializeAsset({ ...temporary, masterStatus: 'errored' }).master).toEqual({ status: 'errored' });
    expect(serializeAsset({ ...temporary, masterStatus: 'ready' }, { masterUrl: 'https://x/m' }).master).toEqual({ status: 'ready', url: 'https://x/m' });
    // Expired: the service layer gives no URL, and the object is gone.
    expect(serializeAsset({ ...temporary, masterStatus: 'ready' })).not.toHaveProperty('master');
    expect(serializeAsset({ ...temporary, masterStatus: 'ready' }).master_access).toBe('temporary');
  });

  test('a clip names its source asset', () => {
    expect(serializeAsset({ ...base, sourceAssetId: 'src' }).source_asset_id).toBe('src');
    expect(serializeAsset(base)).not.toHaveProperty('source_asset_id');
  });

  test('a live recording: live_stream_id and is_live, progress "live" while broadcasting, recording_times as stored', () => {
    const spans = [{ started_at: '2026-11-22T10:00:00.000Z', duration: 12.5, type: 'content' }];
    const live = serializeAsset({ ...base, ingestType: 'live_rtmp', liveStreamId: 'L1', isLive: true, recordingTimesJson: JSON.stringify(spans) });
    expect(live).toMatchObject({ live_stream_id: 'L1', is_live: true, progress: { state: 'live', progress: -1 }, recording_times: spans, ingest_type: 'live_rtmp' });
    const finished = serializeAsset({ ...base, status: 'ready', progressState: 'completed', liveStreamId: 'L1', isLive: false, recordingTimesJson: JSON.stringify(spans) });
    expect(finished).toMatchObject({ live_stream_id: 'L1', is_live: false, progress: { state: 'completed', progress: 100 } });
    expect(serializeAsset(base)).not.toHaveProperty('live_stream_id');
    expect(serializeAsset(base)).not.toHaveProperty('is_live');
    expect(serializeAsset(base)).not.toHaveProperty('recording_times');
  });
});
