import { readFileSync } from 'node:fs';
import { startFaultProxy, type FaultProxy } from '../../harness/fault-proxy';
import { Api } from '../support/api';
import { clusterS3, isCluster } from '../support/cluster-services';
import { httpGet, parseMediaPlaylist } from '../support/hls';
import type { KeyframeServer } from '../support/keyframe-server';
import { loadMultivariant, multivariantUrl } from '../support/playback';
import { CHUNK_GRANULE_BYTES, createUpload, putChunk, waitForUploadStatus } from '../support/uploads';
import { disposeKeyframe, expect, startKeyframe, test } from '../support/test';

// The cluster's bucket answering 503, then hanging, then back (a switchable proxy in front of
// Swift): an asset created during the outage is not lost but becomes ready once the bucket answers
// again, the API keeps answering, and /api/health tells the balancer quickly instead of hanging.

test.skip(!isCluster(), 'needs the cluster run: its nodes keep everything in the bucket');

let proxy: FaultProxy | undefined;
let server: KeyframeServer | undefined;
test.afterAll(async () => {
  await disposeKeyframe(server);
  await proxy?.close();
});

const timed = async <T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> => {
  const startedAt = Date.now();
  const value = await run();
  return { value, ms: Date.now() - startedAt };
};

test('an asset created while the bucket answers 503 becomes ready once it is back; health tells, and never hangs', async ({ fixtures, media }) => {
  test.setTimeout(240_000);
  proxy = await startFaultProxy({ target: new URL(clusterS3().endpoint) });
  server = await startKeyframe({ label: 'storage-outage', env: { S3_ENDPOINT: proxy.url } });
  const api = new Api(server.baseUrl, await server.createToken());
  const health = () => fetch(server!.url('/api/health'), { signal: AbortSignal.timeout(10_000) });

  proxy.setMode('unavailable');
  const created = await api.createAsset({ inputs: [{ url: media.fileUrl(fixtures.file('video720p')) }], playback_policies: ['public'] });
  // The API answers from the database meanwhile.
  const listed = await api.get('/video/v1/assets');
  expect(listed.status, listed.text).toBe(200);
  // Health reports the bucket (a passed check is kept for up to 30 s) and answers at once.
  let report: { status: number; body: string; ms: number } | undefined;
  for (const deadline = Date.now() + 40_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 1_000))) {
    const { value: response, ms } = await timed(health);
    report = { status: response.status, body: await response.text(), ms };
    if (report.status === 503) break;
  }
  expect(report?.status, report?.body).toBe(503);
  expect(report?.body).toMatch(/"storage":\{"ok":false/);
  expect(report!.ms).toBeLessThan(3_000);
  // Whatever the ingest got to, the outage did not fail the asset.
  const during = await api.get(`/video/v1/assets/${created.id as string}`);
  expect(during.json.data.status, during.text).not.toBe('errored');

  // A hung bucket: health answers 503 within its deadline instead of hanging with the bucket.
  proxy.setMode('stall');
  for (let poll = 0; poll < 3; poll++) {
    const { value: response, ms } = await timed(health);
    const body = await response.text();
    expect(ms, `health answered ${response.status} after ${ms} ms: ${body}`).toBeLessThan(3_500);
    expect(response.status, body).toBe(503);
    if (poll > 0) expect(body).toContain('object storage did not answer within 2 s');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }

  proxy.setMode('pass');
  const asset = await api.waitForStatus(created.id, ['ready', 'errored'], 120_000);
  expect(asset.status, JSON.stringify(asset.errors)).toBe('ready');
  const multivariant = await loadMultivariant(multivariantUrl(server, asset.playback_ids[0].id as string));
  const variant = multivariant.video[0]!;
  const playlist = parseMediaPlaylist((await httpGet(variant.url)).text, variant.url);
  expect((await httpGet(playlist.segments[0]!.url)).status).toBe(200);
  await expect.poll(async () => (await health()).status, { timeout: 45_000, intervals: [1_000] }).toBe(200);
});

test('an upload chunk whose bucket connection is reset gets a 503 UpChunk retries, not a 400 that ends the upload', async ({ fixtures }) => {
  test.setTimeout(180_000);
  proxy ??= await startFaultProxy({ target: new URL(clusterS3().endpoint) });
  server ??= await startKeyframe({ label: 'storage-outage', env: { S3_ENDPOINT: proxy.url } });
  const api = new Api(server.baseUrl, await server.createToken());
  const file = readFileSync(fixtures.path('video720p'));
  const upload = await createUpload(api, { new_asset_settings: { playback_policies: ['public'] } });
  const firstEnd = CHUNK_GRANULE_BYTES * 2;

  // The node keeps the chunk's bytes and stores them in the bucket before answering; the bucket
  // resetting its connections (an endpoint restarting) is an outage, as ECONNRESET of a client is not.
  proxy.setMode('reset');
  const refused = await putChunk(upload.url, file, 0, firstEnd);
  expect(refused.status, refused.describe).toBe(503);
  expect(refused.headers.get('retry-after')).toBe('5');

  proxy.setMode('pass');
  const first = await putChunk(upload.url, file, 0, firstEnd);
  expect(first.status, first.describe).toBe(308);
  const last = await putChunk(upload.url, file, firstEnd, file.length);
  expect(last.status, last.describe).toBe(200);
  const done = await waitForUploadStatus(api, upload.id, ['asset_created'], 60_000);
  expect(done.asset_id).toBeTruthy();
});
