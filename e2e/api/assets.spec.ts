import { existsSync } from 'node:fs';
import type Mux from '@mux/mux-node';
import { Api, type Json } from '../support/api';
import { probeDuration, type Fixtures } from '../support/fixtures';
import { assetDirsOf, type AccessToken, type KeyframeServer } from '../support/keyframe-server';
import { sharedMediaPath } from '../support/paths';
import { disposeKeyframe, expect, muxClient, startKeyframe, test } from '../support/test';

// Happy paths of the asset API, driven mostly through @mux/mux-node as a real client would.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls with the SDK's retrieve (≈1 req/s, the per-asset limit) until the asset leaves `preparing`. */
const retrieveUntilSettled = async (mux: Mux, assetId: string, timeoutMs = 45_000) => {
  const deadline = Date.now() + timeoutMs;
  let asset = await mux.video.assets.retrieve(assetId);
  while (asset.status === 'preparing' && Date.now() < deadline) {
    await sleep(1_100);
    asset = await mux.video.assets.retrieve(assetId);
  }
  return asset;
};

const videoTracks = (asset: Json): Json[] => (asset.tracks ?? []).filter((track: Json) => track.type === 'video');
const audioTracks = (asset: Json): Json[] => (asset.tracks ?? []).filter((track: Json) => track.type === 'audio');

const expectFreshlyCreated = (asset: Json) => {
  expect(asset.id).toMatch(/^[A-Za-z0-9]{20,}$/);
  expect(asset.status).toBe('preparing');
  expect(asset.created_at).toMatch(/^\d+$/);
  expect(Math.abs(Number(asset.created_at) - Date.now() / 1000)).toBeLessThan(120);
  expect(asset.video_quality).toBe('plus');
  expect(asset.encoding_tier).toBe('smart');
  expect(asset.playback_ids).toEqual([{ id: expect.any(String), policy: 'public' }]);
};

let server: KeyframeServer;
let token: AccessToken;
let api: Api;
let mux: Mux;

test.beforeAll(async () => {
  server = await startKeyframe({ label: 'assets' });
  token = await server.createToken();
  api = new Api(server.baseUrl, token);
  mux = muxClient(server, token);
});

test.afterAll(async () => {
  await disposeKeyframe(server);
});

test.describe('creating an asset from a URL', () => {
  const creationStyles: Array<{ name: string; create: (url: string) => Promise<Json>; settle: (id: string) => Promise<Json> }> = [
    {
      name: 'raw HTTP, deprecated string `input` + `playback_policy`',
      create: (url) => api.createAsset({ input: url, playback_policy: 'public' }),
      settle: (id) => api.waitForStatus(id, ['ready', 'errored']),
    },
    {
      name: 'mux-node, `inputs` array + `playback_policies`',
      create: (url) => mux.video.assets.create({ inputs: [{ url }], playback_policies: ['public'] }),
      settle: (id) => retrieveUntilSettled(mux, id),
    },
  ];

  for (const style of creationStyles) {
    test(`${style.name} → ready with the media fields of a 1280x720 30 fps source`, async ({ media, fixtures }) => {
      const sourceDuration = await probeDuration(fixtures.path('video720p'));
      const created = await style.create(media.fileUrl(fixtures.file('video720p')));
      expectFreshlyCreated(created);

      const asset = await style.settle(created.id);
      expect(asset.status, JSON.stringify(asset.errors)).toBe('ready');
      expect(asset.id).toBe(created.id);
      expect(asset.created_at).toBe(created.created_at);
      expect(Math.abs(asset.duration - sourceDuration)).toBeLessThanOrEqual(0.1);
      expect(asset.aspect_ratio).toBe('16:9');
      expect(asset.resolution_tier).toBe('720p');
      expect(asset.max_stored_frame_rate).toBeCloseTo(30, 1);
      expect(asset.video_quality).toBe('plus');
      expect(asset.encoding_tier).toBe('smart');
      expect(asset.errors).toBeUndefined();

      expect(asset.tracks).toHaveLength(2);
      const [video] = videoTracks(asset);
      expect(video).toMatchObject({ id: expect.any(String), type: 'video', max_width: 1280, max_height: 720 });
      expect(video.max_frame_rate).toBeCloseTo(30, 1);
      const [audio] = audioTracks(asset);
      expect(audio).toMatchObject({ id: expect.any(String), type: 'audio', max_channels: 2, primary: true });
    });
  }

  test('follows a 302 redirect to the media', async ({ media, fixtures }) => {
    const created = await api.createAsset({ inputs: [{ url: media.redirectUrl(`/${fixtures.file('videoSmall')}`) }] });
    const asset = await api.waitForStatus(created.id);
    expect(asset.status, JSON.stringify(asset.errors)).toBe('ready');
    expect(Math.abs(asset.duration - (await probeDuration(fixtures.path('videoSmall'))))).toBeLessThanOrEqual(0.1);
    expect(videoTracks(asset)[0]).toMatchObject({ max_width: 320, max_height: 240 });
    expect(asset.aspect_ratio).toBe('4:3');
    // No playback policy requested → no playback IDs.
    expect(asset.playback_ids ?? []).toEqual([]);
  });

  const qualityNames = [
    { body: { video_quality: 'basic' }, video_quality: 'basic', encoding_tier: 'baseline' },
    { body: { encoding_tier: 'baseline' }, video_quality: 'basic', encoding_tier: 'baseline' },
    { body: { video_quality: 'plus' }, video_quality: 'plus', encoding_tier: 'smart' },
    { body: { encoding_tier: 'smart' }, video_quality: 'plus', encoding_tier: 'smart' },
    { body: { video_quality: 'premium' }, video_quality: 'premium', encoding_tier: 'premium' },
    { body: { encoding_tier: 'premium' }, video_quality: 'premium', encoding_tier: 'premium' },
    { body: { video_quality: 'premium', max_resolution_tier: '2160p' }, video_quality: 'premium', encoding_tier: 'premium' },
  ];
  for (const quality of qualityNames) {
    test(`echoes both quality names for ${JSON.stringify(quality.body)}`, async ({ media, fixtures }) => {
      const created = await api.createAsset({ inputs: [{ url: media.fileUrl(fixtures.file('videoSmall')) }], ...quality.body });
      expect(created).toMatchObject({ video_quality: quality.video_quality, encoding_tier: quality.encoding_tier });
      const fetched = await mux.video.assets.retrieve(created.id);
      expect(fetched).toMatchObject({ video_quality: quality.video_quality, encoding_tier: quality.encoding_tier });
    });
  }
});

test.describe('real footage from ../shared/media', () => {
  const cases = [
    {
      file: 'android_h264_aac_720p_5s_rot90.mp4',
      why: 'rotation=90 display matrix: coded 1280x720, displayed portrait',
      width: 720,
      height: 1280,
      aspectRatio: '9:16',
      tier: '720p',
    },
    {
      file: 'london_h264_aac_360p_17s.mp4',
      why: '17 s, 640x360, AAC 48 kHz stereo',
      width: 640,
      height: 360,
      aspectRatio: '16:9',
      tier: '720p',
    },
  ];
  for (const sample of cases) {
    test(`${sample.file} (${sample.why})`, async ({ media }) => {
      const source = sharedMediaPath(sample.file);
      test.skip(!source, `${sample.file} is not available on this machine`);
      const sourceDuration = await probeDuration(source!);

      const created = await mux.video.assets.create({ inputs: [{ url: media.fileUrl(sample.file) }], playback_policies: ['public'] });
      const asset = await retrieveUntilSettled(mux, created.id);
      expect(asset.status, JSON.stringify(asset.errors)).toBe('ready');
      expect(Math.abs((asset.duration ?? -1) - sourceDuration)).toBeLessThanOrEqual(0.1);
      expect(asset.aspect_ratio).toBe(sample.aspectRatio);
      expect(asset.resolution_tier).toBe(sample.tier);
      const videos = videoTracks(asset);
      expect(videos).toHaveLength(1);
      expect(videos[0]).toMatchObject({ max_width: sample.width, max_height: sample.height });
      expect(audioTracks(asset)).toEqual([expect.objectContaining({ max_channels: 2, primary: true })]);
    });
  }
});

test.describe('audio-only sources', () => {
  const cases: Array<{ name: string; file: (fixtures: Fixtures) => { file: string; path: string | undefined } }> = [
    {
      name: 'generated AAC in M4A',
      file: (fixtures) => ({ file: fixtures.file('audioOnly'), path: fixtures.path('audioOnly') }),
    },
    {
      name: 't-rex-roar.mp3 (shared media)',
      file: () => ({ file: 't-rex-roar.mp3', path: sharedMediaPath('t-rex-roar.mp3') }),
    },
  ];
  for (const sample of cases) {
    test(`${sample.name} → resolution_tier audio-only with only an audio track`, async ({ media, fixtures }) => {
      const { file, path } = sample.file(fixtures);
      test.skip(!path || !existsSync(path), `${file} is not available on this machine`);
      const sourceDuration = await probeDuration(path!);

      const created = await mux.video.assets.create({ inputs: [{ url: media.fileUrl(file) }], playback_policies: ['public'] });
      const asset = await retrieveUntilSettled(mux, created.id);
      expect(asset.status, JSON.stringify(asset.errors)).toBe('ready');
      expect(asset.resolution_tier).toBe('audio-only');
      expect(Math.abs((asset.duration ?? -1) - sourceDuration)).toBeLessThanOrEqual(0.1);
      expect(asset.tracks).toHaveLength(1);
      expect(asset.tracks?.[0]).toMatchObject({ type: 'audio', primary: true });
      expect(videoTracks(asset)).toEqual([]);
    });
  }
});

test('update passthrough and meta, then clear passthrough with ""', async ({ media, fixtures }) => {
  const created = await mux.video.assets.create({ inputs: [{ url: media.fileUrl(fixtures.file('videoSmall')) }] });
  const meta = { title: 'Keyframe e2e — ünïcödé title', creator_id: 'creator-42', external_id: 'ext-7' };

  const updated = await mux.video.assets.update(created.id, { passthrough: 'order-1234', meta });
  expect(updated.id).toBe(created.id);
  expect(updated.passthrough).toBe('order-1234');
  expect(updated.meta).toEqual(meta);

  const fetched = await mux.video.assets.retrieve(created.id);
  expect(fetched.passthrough).toBe('order-1234');
  expect(fetched.meta).toEqual(meta);

  const cleared = await mux.video.assets.update(created.id, { passthrough: '' });
  expect(cleared.passthrough ?? '').toBe('');
  expect(cleared.meta).toEqual(meta);
  const refetched = await mux.video.assets.retrieve(created.id);
  expect(refetched.passthrough ?? '').toBe('');
  expect(refetched.meta).toEqual(meta);
});

test('signed playback ID: add, retrieve, reverse-lookup, delete', async ({ media, fixtures }) => {
  const created = await mux.video.assets.create({ inputs: [{ url: media.fileUrl(fixtures.file('videoSmall')) }] });
  expect(created.playback_ids ?? []).toEqual([]);

  const playbackId = await mux.video.assets.createPlaybackId(created.id, { policy: 'signed' });
  expect(playbackId).toEqual({ id: expect.stringMatching(/^[A-Za-z0-9]{20,}$/), policy: 'signed' });

  expect(await mux.video.assets.retrievePlaybackId(created.id, playbackId.id)).toEqual(playbackId);
  expect((await mux.video.assets.retrieve(created.id)).playback_ids).toEqual([playbackId]);
  expect(await mux.video.playbackIds.retrieve(playbackId.id)).toEqual({
    id: playbackId.id,
    policy: 'signed',
    object: { type: 'asset', id: created.id },
  });

  await mux.video.assets.deletePlaybackId(created.id, playbackId.id);

  const afterDelete = await api.get(`/video/v1/assets/${created.id}/playback-ids/${playbackId.id}`);
  expect(afterDelete.status, afterDelete.text).toBe(404);
  expect(afterDelete.json?.error?.type).toBe('not_found');
  const lookupAfterDelete = await api.get(`/video/v1/playback-ids/${playbackId.id}`);
  expect(lookupAfterDelete.status, lookupAfterDelete.text).toBe(404);
  await expect(mux.video.assets.retrievePlaybackId(created.id, playbackId.id)).rejects.toMatchObject({ status: 404 });
  expect((await mux.video.assets.retrieve(created.id)).playback_ids ?? []).toEqual([]);
});

test('delete a ready asset: 204, then 404, and its folder is gone', async ({ media, fixtures }) => {
  const created = await mux.video.assets.create({ inputs: [{ url: media.fileUrl(fixtures.file('videoSmall')) }] });
  const ready = await retrieveUntilSettled(mux, created.id);
  expect(ready.status, JSON.stringify(ready.errors)).toBe('ready');
  expect(assetDirsOf(server, created.id).some((dir) => existsSync(dir)), 'the ingested asset has a folder under DATA_DIR/assets').toBe(true);

  const deleted = await api.delete(`/video/v1/assets/${created.id}`);
  expect(deleted.status, deleted.text).toBe(204);
  expect(deleted.text).toBe('');

  const gone = await api.get(`/video/v1/assets/${created.id}`);
  expect(gone.status, gone.text).toBe(404);
  expect(gone.json?.error?.type).toBe('not_found');
  await expect(mux.video.assets.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
  // On a cluster the other nodes remove their copies once their own transfers of the asset have
  // settled (lib/services/storage/on-node-event.ts), a moment after the 204.
  for (const dir of assetDirsOf(server, created.id)) await expect.poll(() => existsSync(dir), { message: dir, timeout: 15_000 }).toBe(false);
  expect(await api.listAllAssetIds()).not.toContain(created.id);
});
