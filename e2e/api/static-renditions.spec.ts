import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type Mux from '@mux/mux-node';
import { chromium } from '@playwright/test';
import { Api, type Json } from '../support/api';
import { chromiumLaunchOptions } from '../../harness/chromium';
import { boxesIn, ffprobe } from '../support/media-probe';
import { assetDirsOf, type AccessToken, type KeyframeServer } from '../support/keyframe-server';
import { createUpload, sendToUploadUrl, waitForUploadStatus } from '../support/uploads';
import { WebhookReceiver } from '../../harness/webhook-receiver';
import { disposeKeyframe, expect, muxClient, startKeyframe, test } from '../support/test';

// MP4/M4A static renditions end to end, through @mux/mux-node: requested on create, by POST, by
// the legacy mp4-support PUT; built from the just-in-time segments; served on the playback host.

test.describe.configure({ mode: 'serial' });

let server: KeyframeServer;
let token: AccessToken;
let api: Api;
let mux: Mux;
let receiver: WebhookReceiver;
let scratch: string;

test.beforeAll(async () => {
  server = await startKeyframe({ label: 'static-renditions' });
  token = await server.createToken();
  api = new Api(server.baseUrl, token);
  mux = muxClient(server, token);
  receiver = await (await WebhookReceiver.start()).subscribeTo(server);
  scratch = await mkdtemp(path.join(os.tmpdir(), 'kf-static-'));
});

test.afterAll(async () => {
  await receiver?.close();
  await disposeKeyframe(server);
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const fetchFile = (playbackId: string, name: string, { query = '', headers = {}, method = 'GET' }: { query?: string; headers?: Record<string, string>; method?: string } = {}) =>
  fetch(server.url(`/${playbackId}/${name}${query ? `?${query}` : ''}`), { method, headers });

const download = async (playbackId: string, name: string, query = '') => {
  const response = await fetchFile(playbackId, name, { query });
  expect(response.status, `${name}: ${response.status}`).toBe(200);
  const bytes = Buffer.from(await response.arrayBuffer());
  const file = path.join(scratch, `${playbackId}-${name}`);
  await writeFile(file, bytes);
  return { response, bytes, file };
};

const probe = async (file: string): Promise<Json> => {
  const result = await ffprobe(['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
};

const topLevelTypes = (bytes: Buffer) => boxesIn(bytes).map((box) => box.type);

const expectProgressive = (bytes: Buffer) => {
  const types = topLevelTypes(bytes);
  expect(types).toContain('moov');
  expect(types).toContain('mdat');
  expect(types).not.toContain('moof');
  expect(types.indexOf('moov'), `moov before mdat: ${types.join(' ')}`).toBeLessThan(types.indexOf('mdat'));
};

// Every node's copies of the asset's static renditions (one node, or each node of a cluster run).
const staticFilesOf = async (assetId: string): Promise<string[]> => {
  const listed = await Promise.all(assetDirsOf(server, assetId).map((dir) => readdir(path.join(dir, 'static')).catch(() => [] as string[])));
  // Stored as <rendition id>-<name>.
  return [...new Set(listed.flat().map((file) => file.slice(file.indexOf('-') + 1)))].sort();
};

const eventsOf = (objectId: string) => receiver.accepted(objectId).map((entry) => entry.event.type as string);

const createAsset = async (body: Json) => {
  const created = await api.createAsset(body);
  const asset = await api.waitForStatus(created.id, ['ready', 'errored'], 90_000);
  expect(asset.status, JSON.stringify(asset.errors)).toBe('ready');
  return { created, asset, playbackId: asset.playback_ids[0].id as string };
};

const FRAME = 1 / 30;

let publicAsset: { id: string; playbackId: string; duration: number };

test('create with static_renditions: preparing files, then ready ones with webhooks in order; progressive H.264/AAC MP4 and AAC M4A', async ({ media, fixtures }) => {
  const created = await mux.video.assets.create({
    inputs: [{ url: media.fileUrl(fixtures.file('video720p')) }],
    playback_policies: ['public'],
    static_renditions: [{ resolution: 'highest' }, { resolution: 'audio-only', passthrough: 'the soundtrack' }],
  });
  const files = created.static_renditions?.files ?? [];
  expect(created.static_renditions?.status).toBe('preparing');
  expect(files.map((file) => [file.name, file.ext, file.type, file.status, file.resolution])).toEqual([
    ['highest.mp4', 'mp4', 'standard', 'preparing', 'highest'],
    ['audio.m4a', 'm4a', 'standard', 'preparing', 'audio-only'],
  ]);
  expect(files[1]?.passthrough).toBe('the soundtrack');
  const [highest, audio] = files.map((file) => file.id!);

  const ready = await Promise.all([highest!, audio!].map((id) => receiver.waitForEvent('video.asset.static_rendition.ready', id, { timeoutMs: 120_000 })));
  expect(ready[0]!.event.data).toMatchObject({ asset_id: created.id, name: 'highest.mp4', status: 'ready', width: 1280, height: 720, resolution_tier: '720p' });
  expect(ready[1]!.event.data).toMatchObject({ asset_id: created.id, name: 'audio.m4a', status: 'ready', passthrough: 'the soundtrack' });

  // Per file: created, then ready; the asset is ready before any file is.
  const order = receiver.accepted().map((entry) => `${entry.event.type} ${entry.event.object.id}`);
  const at = (line: string) => order.indexOf(line);
  expect(at(`video.asset.created ${created.id}`)).toBeGreaterThanOrEqual(0);
  for (const id of [highest, audio]) {
    expect(at(`video.asset.static_rendition.created ${id}`)).toBeGreaterThan(at(`video.asset.created ${created.id}`));
    expect(at(`video.asset.static_rendition.ready ${id}`)).toBeGreaterThan(at(`video.asset.ready ${created.id}`));
    expect(eventsOf(id!)).toEqual(['video.asset.static_rendition.created', 'video.asset.static_rendition.ready']);
  }

  const asset = await mux.video.assets.retrieve(created.id);
  expect(asset.static_renditions?.status).toBe('ready');
  const playbackId = asset.playback_ids![0]!.id!;
  publicAsset = { id: created.id, playbackId, duration: asset.duration! };

  const mp4 = await download(playbackId, 'highest.mp4');
  expect(mp4.response.headers.get('content-type')).toBe('video/mp4');
  expect(mp4.response.headers.get('content-disposition')).toBeNull();
  expect(asset.static_renditions?.files?.[0]?.filesize).toBe(String(mp4.bytes.length));
  expectProgressive(mp4.bytes);
  const video = await probe(mp4.file);
  expect(video.streams.map((stream: Json) => stream.codec_name)).toEqual(['h264', 'aac']);
  expect([video.streams[0].width, video.streams[0].height]).toEqual([1280, 720]);
  expect(Math.abs(Number(video.streams[0].duration) - asset.duration!), `video ${video.streams[0].duration} vs asset ${asset.duration}`).toBeLessThanOrEqual(FRAME + 1e-3);
  expect(Math.abs(Number(video.format.duration) - asset.duration!), `file ${video.format.duration} vs asset ${asset.duration}`).toBeLessThanOrEqual(FRAME + 1e-3);

  const m4a = await download(playbackId, 'audio.m4a');
  expect(m4a.response.headers.get('content-type')).toBe('audio/m4a');
  expectProgressive(m4a.bytes);
  const sound = await probe(m4a.file);
  expect(sound.streams.map((stream: Json) => stream.codec_name)).toEqual(['aac']);
  expect(Math.abs(Number(sound.format.duration) - asset.duration!)).toBeLessThanOrEqual(FRAME + 1e-3);
});

test('playback host: Range (206/416), HEAD, validators, ?download=, 404 for a file not enabled', async () => {
  const { playbackId } = publicAsset;
  const whole = Buffer.from(await (await fetchFile(playbackId, 'highest.mp4')).arrayBuffer());
  const size = whole.length;

  const partial = await fetchFile(playbackId, 'highest.mp4', { headers: { range: 'bytes=100-1099' } });
  expect(partial.status).toBe(206);
  expect(partial.headers.get('content-range')).toBe(`bytes 100-1099/${size}`);
  expect(Buffer.from(await partial.arrayBuffer()).equals(whole.subarray(100, 1100))).toBe(true);
  const tail = await fetchFile(playbackId, 'highest.mp4', { headers: { range: 'bytes=-500' } });
  expect(tail.status).toBe(206);
  expect(Buffer.from(await tail.arrayBuffer()).equals(whole.subarray(size - 500))).toBe(true);
  const beyond = await fetchFile(playbackId, 'highest.mp4', { headers: { range: `bytes=${size}-` } });
  expect(beyond.status).toBe(416);
  expect(beyond.headers.get('content-range')).toBe(`bytes */${size}`);

  const head = await fetchFile(playbackId, 'highest.mp4', { method: 'HEAD' });
  expect(head.status).toBe(200);
  expect(head.headers.get('content-length')).toBe(String(size));
  expect(head.headers.get('accept-ranges')).toBe('bytes');
  const etag = head.headers.get('etag');
  expect(etag).toMatch(/^"[^"]+"$/);
  expect(head.headers.get('last-modified')).not.toBeNull();
  expect((await fetchFile(playbackId, 'highest.mp4', { headers: { 'if-none-match': etag! } })).status).toBe(304);

  const named = await fetchFile(playbackId, 'highest.mp4', { query: `download=${encodeURIComponent('my cats')}` });
  expect(named.status).toBe(200);
  expect(named.headers.get('content-disposition')).toBe('attachment; filename="my cats.mp4"');
  const sneaky = await fetchFile(playbackId, 'audio.m4a', { query: `download=${encodeURIComponent('../x"y.m4a')}`, method: 'HEAD' });
  expect(sneaky.headers.get('content-disposition')).toBe('attachment; filename="xy.m4a"');

  for (const name of ['capped-1080p.mp4', '720p.mp4', 'low.mp4']) {
    const missing = await fetchFile(playbackId, name);
    expect(missing.status, name).toBe(404);
    expect((await missing.json()).error.type).toBe('not_found');
  }
});

test('a <video> element plays the MP4 in Chromium', async () => {
  const browser = await chromium.launch(chromiumLaunchOptions);
  try {
    const page = await browser.newPage();
    await page.goto(server.url('/login'));
    const result = await page.evaluate(async (src) => {
      const video = document.createElement('video');
      video.muted = true;
      video.src = src;
      document.body.append(video);
      await video.play();
      const started = Date.now();
      while (video.currentTime <= 1.2 && !video.error && Date.now() - started < 20_000) await new Promise((resolve) => setTimeout(resolve, 100));
      return { currentTime: video.currentTime, error: video.error?.message ?? null, width: video.videoWidth };
    }, server.url(`/${publicAsset.playbackId}/highest.mp4`));
    expect(result.error).toBeNull();
    expect(result.width).toBe(1280);
    expect(result.currentTime).toBeGreaterThan(1);
  } finally {
    await browser.close();
  }
});

test('POST: mixing and basic-quality assets are refused with the reason', async ({ media, fixtures }) => {
  const mixing = await api.post(`/video/v1/assets/${publicAsset.id}/static-renditions`, { resolution: '720p' });
  expect(mixing.status).toBe(400);
  expect(mixing.json.error.messages.join(' ')).toMatch(/"highest" cannot be combined/);
  const duplicate = await api.post(`/video/v1/assets/${publicAsset.id}/static-renditions`, { resolution: 'audio-only' });
  expect(duplicate.status).toBe(400);
  expect(duplicate.json.error.messages.join(' ')).toMatch(/more than once/);

  const basic = await api.createAsset({ inputs: [{ url: media.fileUrl(fixtures.file('videoSmall')) }], video_quality: 'basic' });
  const refused = await api.post(`/video/v1/assets/${basic.id}/static-renditions`, { resolution: 'highest' });
  expect(refused.status).toBe(400);
  expect(refused.json.error.messages.join(' ')).toMatch(/video_quality "basic"/);
  expect((await api.post(`/video/v1/assets/NoSuchAsset000000000000000/static-renditions`, { resolution: 'highest' })).status).toBe(404);
});

test('signed playback ID, POST/DELETE after ready: skipped above the source, then highest.mp4 needs a token with aud v; DELETE removes it everywhere', async ({ media, fixtures }) => {
  const { asset, playbackId } = await createAsset({ inputs: [{ url: media.fileUrl(fixtures.file('videoSmall')) }], playback_policies: ['signed'] });

  const tooBig = await mux.video.assets.createStaticRendition(asset.id, { resolution: '1080p' });
  expect(tooBig).toMatchObject({ name: '1080p.mp4', ext: 'mp4', type: 'advanced', status: 'preparing', resolution: '1080p' });
  const skipped = await receiver.waitForEvent('video.asset.static_rendition.skipped', tooBig.id!, { timeoutMs: 60_000 });
  expect(skipped.event.data).toMatchObject({ asset_id: asset.id, status: 'skipped', name: '1080p.mp4' });
  await mux.video.assets.deleteStaticRendition(asset.id, tooBig.id!);
  await receiver.waitForEvent('video.asset.static_rendition.deleted', tooBig.id!);

  const highest = await mux.video.assets.createStaticRendition(asset.id, { resolution: 'highest' });
  await receiver.waitForEvent('video.asset.static_rendition.ready', highest.id!, { timeoutMs: 90_000 });

  const key = await mux.system.signingKeys.create();
  const keyOptions = { keyId: key.id, keySecret: key.private_key! };
  expect((await fetchFile(playbackId, 'highest.mp4')).status).toBe(403);
  const thumbnailToken = await mux.jwt.signPlaybackId(playbackId, { ...keyOptions, type: 'thumbnail' });
  expect((await fetchFile(playbackId, 'highest.mp4', { query: `token=${thumbnailToken}` })).status).toBe(403);
  const videoToken = await mux.jwt.signPlaybackId(playbackId, { ...keyOptions, type: 'video' });
  const { bytes, file } = await download(playbackId, 'highest.mp4', `token=${videoToken}`);
  expectProgressive(bytes);
  const probed = await probe(file);
  expect([probed.streams[0].width, probed.streams[0].height]).toEqual([320, 240]);

  expect(await staticFilesOf(asset.id), 'no temp or work files left').toEqual(['highest.mp4']);
  await mux.video.assets.deleteStaticRendition(asset.id, highest.id!);
  await receiver.waitForEvent('video.asset.static_rendition.deleted', highest.id!);
  expect(await staticFilesOf(asset.id)).toEqual([]);
  expect((await fetchFile(playbackId, 'highest.mp4', { query: `token=${videoToken}` })).status).toBe(404);
  expect((await mux.video.assets.retrieve(asset.id)).static_renditions?.files ?? []).toEqual([]);
});

test('legacy PUT mp4-support: files built with asset-level webhooks, then "none" deletes them', async ({ media, fixtures }) => {
  const { asset, playbackId } = await createAsset({ inputs: [{ url: media.fileUrl(fixtures.file('video720p')) }], playback_policies: ['public'] });

  const updated = await mux.video.assets.updateMP4Support(asset.id, { mp4_support: 'audio-only,capped-1080p' });
  expect(updated.mp4_support).toBe('audio-only,capped-1080p');
  expect(updated.static_renditions?.status).toBe('preparing');
  await receiver.waitForEvent('video.asset.static_renditions.ready', asset.id, { timeoutMs: 120_000 });
  const assetEvents = eventsOf(asset.id).filter((type) => type.includes('static_renditions'));
  expect(assetEvents).toEqual(['video.asset.static_renditions.preparing', 'video.asset.static_renditions.ready']);

  const ready = await mux.video.assets.retrieve(asset.id);
  expect(ready.static_renditions?.status).toBe('ready');
  expect(ready.static_renditions?.files?.map((file) => [file.name, file.ext, file.width, file.height])).toEqual([
    ['audio.m4a', 'm4a', undefined, undefined],
    ['capped-1080p.mp4', 'mp4', 1280, 720],
  ]);
  expect(ready.static_renditions?.files?.every((file) => file.id === undefined && file.status === undefined)).toBe(true);
  const capped = await download(playbackId, 'capped-1080p.mp4');
  expectProgressive(capped.bytes);
  expect((await probe(capped.file)).streams.map((stream: Json) => stream.codec_name)).toEqual(['h264', 'aac']);
  expect((await fetchFile(playbackId, 'audio.m4a', { method: 'HEAD' })).status).toBe(200);
  expect(await staticFilesOf(asset.id)).toEqual(['audio.m4a', 'capped-1080p.mp4']);

  const none = await mux.video.assets.updateMP4Support(asset.id, { mp4_support: 'none' });
  expect(none.mp4_support).toBe('none');
  await receiver.waitForEvent('video.asset.static_renditions.deleted', asset.id);
  for (const name of ['capped-1080p.mp4', 'audio.m4a']) expect((await fetchFile(playbackId, name)).status).toBe(404);
  expect(await staticFilesOf(asset.id)).toEqual([]);
});

test('mp4_support on create is stored and built once the asset is ready', async ({ media, fixtures }) => {
  const created = await api.createAsset({ inputs: [{ url: media.fileUrl(fixtures.file('videoSmall')) }], mp4_support: 'capped-1080p', playback_policies: ['public'] });
  expect(created.mp4_support).toBe('capped-1080p');
  expect(created.static_renditions).toEqual({ status: 'preparing' });
  await receiver.waitForEvent('video.asset.static_renditions.ready', created.id, { timeoutMs: 90_000 });
  const asset = await api.waitForStatus(created.id, ['ready']);
  expect(asset.static_renditions.files.map((file: Json) => file.name)).toEqual(['capped-1080p.mp4']);
  expect((await fetchFile(asset.playback_ids[0].id, 'capped-1080p.mp4', { method: 'HEAD' })).status).toBe(200);
});

test('before the asset is ready: POST is accepted, PUT mp4-support is 412, the file URL is 412; deleting the asset removes its files', async ({ media, fixtures }) => {
  // The input trickles forever, so the asset stays preparing for as long as the test needs.
  const created = await api.createAsset({
    inputs: [{ url: media.slowUrl(fixtures.file('video720p')) }],
    playback_policies: ['public'],
    static_renditions: [{ resolution: 'highest' }],
  });
  const playbackId = created.playback_ids[0].id as string;
  const added = await mux.video.assets.createStaticRendition(created.id, { resolution: 'audio-only' });
  expect(added).toMatchObject({ status: 'preparing', name: 'audio.m4a' });
  const refused = await api.request('PUT', `/video/v1/assets/${created.id}/mp4-support`, { body: { mp4_support: 'capped-1080p' } });
  expect(refused.status).toBe(412);
  expect(refused.json.error).toEqual({ type: 'failed_request', messages: ['Asset is not ready'] });
  const early = await fetchFile(playbackId, 'highest.mp4');
  expect(early.status).toBe(412);
  expect((await early.json()).error.type).toBe('failed_request');

  expect((await api.delete(`/video/v1/assets/${created.id}`)).status).toBe(204);
  expect((await fetchFile(playbackId, 'highest.mp4')).status).toBe(404);
  expect(await staticFilesOf(created.id)).toEqual([]);
});

test('direct upload: new_asset_settings.static_renditions are created with the asset and built', async ({ fixtures }) => {
  const upload = await createUpload(api, { new_asset_settings: { playback_policies: ['public'], static_renditions: [{ resolution: 'audio-only' }] }, cors_origin: '*' });
  const sent = await sendToUploadUrl(upload.url, { body: await readFile(fixtures.path('videoSmall')) });
  expect(sent.status, sent.describe).toBeLessThan(300);
  const { asset_id: assetId } = await waitForUploadStatus(api, upload.id, ['asset_created']);
  const asset = await api.waitForStatus(assetId, ['ready']);
  const [file] = asset.static_renditions.files;
  expect(file).toMatchObject({ name: 'audio.m4a', resolution: 'audio-only' });
  expect(eventsOf(file.id)[0]).toBe('video.asset.static_rendition.created');
  await receiver.waitForEvent('video.asset.static_rendition.ready', file.id, { timeoutMs: 60_000 });
  const { file: saved } = await download(asset.playback_ids[0].id, 'audio.m4a');
  expect((await probe(saved)).streams.map((stream: Json) => stream.codec_name)).toEqual(['aac']);
});

test('an asset that errors takes its static renditions with it: errored, with a webhook', async ({ media, fixtures }) => {
  const created = await mux.video.assets.create({ inputs: [{ url: media.fileUrl(fixtures.file('corrupt')) }], static_renditions: [{ resolution: 'highest' }] });
  const fileId = created.static_renditions!.files![0]!.id!;
  const errored = await receiver.waitForEvent('video.asset.static_rendition.errored', fileId, { timeoutMs: 60_000 });
  expect(errored.event.data).toMatchObject({ asset_id: created.id, status: 'errored', error: { messages: ['The asset could not be ingested'] } });
  expect((await mux.video.assets.retrieve(created.id)).static_renditions?.status).toBe('errored');
});

test('deleting the asset while its MP4 is being built stops the build and leaves no files', async ({ media, fixtures }) => {
  const created = await mux.video.assets.create({ inputs: [{ url: media.fileUrl(fixtures.file('video720p')) }], static_renditions: [{ resolution: 'highest' }] });
  const fileId = created.static_renditions!.files![0]!.id!;
  await receiver.waitForEvent('video.asset.ready', created.id, { timeoutMs: 60_000 });
  await mux.video.assets.delete(created.id);
  // Long enough for a failed build's retry (2 s backoff) to have run.
  await new Promise((resolve) => setTimeout(resolve, 4_000));
  const settled = eventsOf(fileId).filter((type) => type !== 'video.asset.static_rendition.created');
  expect(settled.filter((type) => type !== 'video.asset.static_rendition.ready'), 'no errored file for a deleted asset').toEqual([]);
  for (const dir of assetDirsOf(server, created.id)) await expect(readdir(dir), dir).rejects.toThrow(/ENOENT/);
});
