import { startFaultProxy, type FaultProxy } from '../../harness/fault-proxy';
import { Api } from '../support/api';
import { clusterS3, isCluster } from '../support/cluster-services';
import { httpGet, parseMediaPlaylist } from '../support/hls';
import type { KeyframeServer } from '../support/keyframe-server';
import { loadMultivariant, multivariantUrl } from '../support/playback';
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
