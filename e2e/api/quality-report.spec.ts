import { Api, type Json } from '../support/api';
import type { KeyframeServer } from '../support/keyframe-server';
import { loadMultivariant, multivariantUrl } from '../support/playback';
import { loadMediaPlaylist } from '../support/playback-checks';
import { disposeKeyframe, expect, startKeyframe, test } from '../support/test';

// The quality report (Keyframe's own API, outside Mux's): asked for, measured on the first, middle
// and last segments of every just-in-time rung, and made of the very segments players get (their
// bytes give the bitrate reported); refused for what has no video; 401/403/404 as the API's.

let server: KeyframeServer;
let api: Api;

test.beforeAll(async () => {
  server = await startKeyframe({ label: 'quality-report' });
  api = new Api(server.baseUrl, await server.createToken());
});
test.afterAll(async () => disposeKeyframe(server));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const waitForReport = async (assetId: string, timeoutMs = 120_000): Promise<Json> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await api.get(`/api/assets/${assetId}/quality`);
    expect(response.status).toBe(200);
    const report = response.json.data;
    if (report.status !== 'measuring') return report;
    if (Date.now() > deadline) throw new Error(`the quality of ${assetId} was still being measured after ${timeoutMs} ms`);
    await sleep(1_000);
  }
};

test('measured when asked for: every rung of the ladder, from the segments players get, scored against the source', async ({ media, fixtures }, testInfo) => {
  test.setTimeout(180_000);
  const created = await api.createAsset({ inputs: [{ url: media.fileUrl(fixtures.file('video720p')) }], playback_policies: ['public'] });
  const asset = await api.waitForStatus(created.id, ['ready']);
  expect((await api.get(`/api/assets/${asset.id}/quality`)).json.data).toMatchObject({ asset_id: asset.id, status: 'not_requested', rungs: [] });

  const requested = await api.post(`/api/assets/${asset.id}/quality`, {});
  expect(requested.status).toBe(202);
  expect(requested.json.data).toMatchObject({ status: 'measuring', requested_at: expect.any(String) });
  const report = await waitForReport(asset.id);
  expect(report, JSON.stringify(report)).toMatchObject({ status: 'ready', error: null, measured_at: expect.any(String) });
  await testInfo.attach('quality-report.json', { body: JSON.stringify(report, null, 2), contentType: 'application/json' });

  const playbackId = asset.playback_ids[0].id;
  const playlist = await loadMultivariant(multivariantUrl(server, playbackId));
  expect(report.rungs.map((rung: Json) => rung.name).sort()).toEqual(playlist.video.map((variant) => variant.name).sort());
  // A 4 s source: segments 0 (2 s) and 1 (2 s); the first, middle and last are those two.
  expect(report.sampled_segments).toEqual([0, 1]);
  for (const rung of report.rungs) {
    expect(rung.ssim, rung.name).toBeGreaterThan(0.9);
    expect(rung.ssim, rung.name).toBeLessThan(1);
    expect(rung.psnr, rung.name).toBeGreaterThan(30);
    expect(rung.psnr, rung.name).toBeLessThan(100);
    expect(rung.frames, rung.name).toBe(120);
    expect(rung.peak_segment_bitrate, rung.name).toBeGreaterThanOrEqual(rung.average_bitrate);
    // The bitrate reported is that of the segments a player fetches.
    const variant = playlist.video.find((candidate) => candidate.name === rung.name)!;
    const rendition = await loadMediaPlaylist(variant.url!);
    const sampled = report.sampled_segments.map((index: number) => rendition.segments[index]!);
    const bytes = await Promise.all(sampled.map(async (segment: { url: string }) => (await fetch(segment.url)).arrayBuffer()));
    const bits = bytes.reduce((sum, body) => sum + body.byteLength * 8, 0);
    const seconds = sampled.reduce((sum: number, segment: { duration: number }) => sum + segment.duration, 0);
    expect(Math.abs(rung.average_bitrate - bits / seconds), rung.name).toBeLessThanOrEqual(rung.average_bitrate * 0.01);
  }

  // Asking again measures again: a newer report.
  expect((await api.post(`/api/assets/${asset.id}/quality`, {})).status).toBe(202);
  const again = await waitForReport(asset.id);
  expect(again.status).toBe('ready');
  expect(Date.parse(again.measured_at)).toBeGreaterThan(Date.parse(report.measured_at));
  expect(again.rungs.map((rung: Json) => [rung.name, rung.ssim])).toEqual(report.rungs.map((rung: Json) => [rung.name, rung.ssim]));
});

test('what has no video, is not ready or does not exist is refused in the API error shape; credentials are checked', async ({ media, fixtures }) => {
  test.setTimeout(90_000);
  const audio = await api.createAsset({ inputs: [{ url: media.fileUrl(fixtures.file('audioOnly')) }], playback_policies: ['public'] });
  await api.waitForStatus(audio.id, ['ready']);
  const refused = await api.post(`/api/assets/${audio.id}/quality`, {});
  expect(refused.status).toBe(400);
  expect(refused.json).toEqual({ error: { type: 'invalid_parameters', messages: ['This asset has no video to measure'] } });
  expect((await api.get(`/api/assets/${audio.id}/quality`)).json.data.status).toBe('not_requested');

  const broken = await api.createAsset({ inputs: [{ url: media.fileUrl(fixtures.file('corrupt')) }], playback_policies: ['public'] });
  await api.waitForStatus(broken.id, ['errored']);
  const notReady = await api.post(`/api/assets/${broken.id}/quality`, {});
  expect(notReady.status).toBe(412);
  expect(notReady.json.error).toEqual({ type: 'failed_request', messages: ['The quality of an asset can be measured once it is ready'] });

  expect((await api.get('/api/assets/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789/quality')).status).toBe(404);
  expect((await fetch(`${server.baseUrl}/api/assets/${audio.id}/quality`)).status).toBe(401);
  const readOnly = new Api(server.baseUrl, await server.createToken({ readOnly: true }));
  expect((await readOnly.get(`/api/assets/${audio.id}/quality`)).status).toBe(200);
  expect((await readOnly.post(`/api/assets/${audio.id}/quality`, {})).status).toBe(403);
});
