import { existsSync } from 'node:fs';
import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import type Mux from '@mux/mux-node';
import { Api, type Json } from '../support/api';
import { makeSource, makeTempDir, probeStreams, removeDir } from '../support/clip-media';
import { assetDirsOf, type AccessToken, type KeyframeServer } from '../support/keyframe-server';
import { MediaServer } from '../../harness/media-server';
import { disposeKeyframe, expect, muxClient, startKeyframe, test } from '../support/test';
import { createUpload, putWholeFile, waitForUploadStatus } from '../support/uploads';
import { WebhookReceiver } from '../../harness/webhook-receiver';

// Master access end to end: the temporary download URL works without credentials (Range, HEAD,
// `download=`), is an MP4 of the source, and stops working at its expiry (a short TTL here), when
// master access reverts to `none`; webhooks preparing → ready → deleted.

const TTL_SECONDS = 15;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: KeyframeServer;
let token: AccessToken;
let api: Api;
let mux: Mux;
let media: MediaServer;
let receiver: WebhookReceiver;
let dir: string;
let sourceUrl: string;
let audioUrl: string;

test.beforeAll(async () => {
  test.setTimeout(90_000);
  dir = await makeTempDir('master');
  await makeSource(path.join(dir, 'source.mp4'), { seconds: 4 });
  await makeSource(path.join(dir, 'audio.m4a'), { seconds: 3, audioOnly: true });
  media = await MediaServer.start({ roots: [dir] });
  sourceUrl = media.fileUrl('source.mp4');
  audioUrl = media.fileUrl('audio.m4a');
  server = await startKeyframe({ label: 'master-access', env: { MASTER_ACCESS_TTL_SECONDS: String(TTL_SECONDS), WEBHOOK_RETRY_BASE_SECONDS: '0.5' } });
  token = await server.createToken();
  api = new Api(server.baseUrl, token);
  mux = muxClient(server, token);
  receiver = await (await WebhookReceiver.start()).subscribeTo(server);
});

test.afterAll(async () => {
  await disposeKeyframe(server);
  await receiver?.close();
  await media?.close();
  if (dir) await removeDir(dir);
});

const waitForMaster = async (assetId: string, status: string, timeoutMs = 60_000): Promise<Json> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const asset = (await api.get(`/video/v1/assets/${assetId}`)).json.data;
    if (asset.master?.status === status) return asset;
    if (Date.now() > deadline) throw new Error(`master of ${assetId} never became ${status}: ${JSON.stringify(asset.master)}`);
    await sleep(1_100);
  }
};

test('created with master_access temporary: a signed MP4 download, then expiry reverts it to none', async () => {
  test.setTimeout(200_000);
  const created = await api.createAsset({ inputs: [{ url: sourceUrl }], playback_policies: ['public'], master_access: 'temporary' });
  // Never read after it is ready: only the maintenance sweep (every minute) can expire it.
  const unread = await api.createAsset({ inputs: [{ url: sourceUrl }], playback_policies: ['public'], master_access: 'temporary' });
  expect(created.master_access).toBe('temporary');
  expect(created.master).toBeUndefined();
  expect((await api.waitForStatus(created.id, ['ready', 'errored'])).status).toBe('ready');
  const ready = await waitForMaster(created.id, 'ready');
  const url = new URL(ready.master.url as string);
  expect(url.origin).toBe(new URL(server.baseUrl).origin);
  expect(url.pathname).toBe(`/master/${created.id}/mezzanine.mp4`);
  expect(Number(url.searchParams.get('expires'))).toBeGreaterThan(Date.now() / 1000);

  // No credentials: the URL alone.
  const download = await fetch(url);
  expect(download.status).toBe(200);
  expect(download.headers.get('content-type')).toBe('video/mp4');
  const bytes = Buffer.from(await download.arrayBuffer());
  const file = path.join(dir, 'downloaded.mp4');
  await writeFile(file, bytes);
  const probed = await probeStreams(file);
  expect(probed.streams.map((stream) => `${stream.codec_type}:${stream.codec_name}`).sort()).toEqual(['audio:aac', 'video:h264']);
  expect(Math.abs(probed.duration - 4)).toBeLessThan(0.1);
  // +faststart: the index comes before the media.
  expect(bytes.indexOf(Buffer.from('moov'))).toBeLessThan(bytes.indexOf(Buffer.from('mdat')));

  const head = await fetch(url, { method: 'HEAD' });
  expect(head.status).toBe(200);
  expect(Number(head.headers.get('content-length'))).toBe(bytes.length);
  const range = await fetch(url, { headers: { range: 'bytes=100-199' } });
  expect(range.status).toBe(206);
  expect(range.headers.get('content-range')).toBe(`bytes 100-199/${bytes.length}`);
  expect(Buffer.from(await range.arrayBuffer()).equals(bytes.subarray(100, 200))).toBe(true);
  const named = await fetch(`${url.toString()}&download=my%20clip.mp4`);
  expect(named.status).toBe(200);
  expect(named.headers.get('content-disposition')).toBe(`attachment; filename="my clip.mp4"; filename*=UTF-8''my%20clip.mp4`);
  await named.arrayBuffer();

  const tampered = new URL(url);
  tampered.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
  expect((await fetch(tampered)).status).toBe(403);
  expect((await fetch(url.toString().replace(/signature=[^&]+/, 'signature=AAAA'))).status).toBe(403);

  // After the TTL: 410 Gone, master_access back to none, master gone, video.asset.master.deleted.
  const waitMs = Number(url.searchParams.get('expires')) * 1000 - Date.now() + 500;
  await sleep(Math.max(0, waitMs));
  const expired = await fetch(url);
  expect(expired.status).toBe(410);
  const after = (await api.get(`/video/v1/assets/${created.id}`)).json.data;
  expect(after.master_access).toBe('none');
  expect(after.master).toBeUndefined();
  await receiver.waitForEvent('video.asset.master.deleted', created.id);
  const masterEvents = receiver.accepted(created.id).map((entry) => entry.event.type).filter((type: string) => type.startsWith('video.asset.master.'));
  expect(masterEvents).toEqual(['video.asset.master.preparing', 'video.asset.master.ready', 'video.asset.master.deleted']);
  const readyEvent = await receiver.waitForEvent('video.asset.master.ready', created.id);
  expect(readyEvent.event.data.master).toEqual({ status: 'ready', url: ready.master.url });

  const unreadReady = await receiver.waitForEvent('video.asset.master.ready', unread.id);
  const unreadUrl = unreadReady.event.data.master.url as string;
  const unreadDeleted = await receiver.waitForEvent('video.asset.master.deleted', unread.id, { timeoutMs: 90_000 });
  expect(unreadDeleted.event.data.master_access).toBe('none');
  expect(unreadDeleted.event.data.master).toBeUndefined();
  expect((await fetch(unreadUrl)).status).toBe(410);
  // On a cluster the node that removed it tells the others, which drop their copies a moment later.
  for (const assetDir of assetDirsOf(server, unread.id)) {
    const mezzanine = path.join(assetDir, 'master', 'mezzanine.mp4');
    await expect.poll(() => existsSync(mezzanine), { message: mezzanine, timeout: 10_000 }).toBe(false);
  }
});

test('PUT master-access: 412 before ready; temporary then none removes the download at once (SDK)', async () => {
  test.setTimeout(120_000);
  // A source that never finishes downloading keeps its asset preparing.
  const stuck = await api.createAsset({ inputs: [{ url: media.slowUrl('audio.m4a') }], playback_policies: ['public'] });
  const early = await api.request('PUT', `/video/v1/assets/${stuck.id}/master-access`, { body: { master_access: 'temporary' } });
  expect(early.status, early.text).toBe(412);
  expect(early.json.error.type).toBe('failed_request');
  expect((await api.delete(`/video/v1/assets/${stuck.id}`)).status).toBe(204);

  const created = await api.createAsset({ inputs: [{ url: audioUrl }], playback_policies: ['public'] });
  expect((await api.waitForStatus(created.id, ['ready', 'errored'])).status).toBe('ready');

  const requested = await mux.video.assets.updateMasterAccess(created.id, { master_access: 'temporary' });
  expect(requested.master_access).toBe('temporary');
  expect(requested.master?.status).toMatch(/^(preparing|ready)$/);
  const ready = await waitForMaster(created.id, 'ready');
  const url = new URL(ready.master.url as string);
  expect(url.pathname).toBe(`/master/${created.id}/mezzanine.m4a`);
  const download = await fetch(url);
  expect(download.status).toBe(200);
  expect(download.headers.get('content-type')).toBe('audio/mp4');
  const file = path.join(dir, 'downloaded.m4a');
  await writeFile(file, Buffer.from(await download.arrayBuffer()));
  const probed = await probeStreams(file);
  expect(probed.streams.map((stream) => stream.codec_type)).toEqual(['audio']);

  const removed = await mux.video.assets.updateMasterAccess(created.id, { master_access: 'none' });
  expect(removed.master_access).toBe('none');
  expect(removed.master).toBeUndefined();
  expect((await fetch(url)).status).toBe(410);
  await receiver.waitForEvent('video.asset.master.deleted', created.id);

  const bad = await api.request('PUT', `/video/v1/assets/${created.id}/master-access`, { body: { master_access: 'forever' } });
  expect(bad.status).toBe(400);
});

test('a direct upload with new_asset_settings.master_access temporary gets its master once ready', async () => {
  test.setTimeout(90_000);
  const upload = await createUpload(api, { cors_origin: '*', new_asset_settings: { playback_policies: ['public'], master_access: 'temporary' } });
  const sent = await putWholeFile(upload.url, path.join(dir, 'source.mp4'));
  expect(sent.status).toBeLessThan(300);
  const { asset_id: assetId } = await waitForUploadStatus(api, upload.id, ['asset_created']);
  const ready = await waitForMaster(assetId, 'ready');
  expect(ready.master_access).toBe('temporary');
  const response = await fetch(ready.master.url);
  expect(response.status).toBe(200);
  expect(Buffer.from(await response.arrayBuffer()).length).toBeGreaterThan(1000);
});
