import { describe, expect, test } from 'vitest';
import { serializeAsset, type AssetRecord } from './asset';

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
  playbackIds: [],
};

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
});
