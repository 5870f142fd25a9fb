import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Api } from '../support/api';
import { httpGet, parseMediaPlaylist } from '../support/hls';
import { isCluster, KeyframeCluster, type EnvOverrides, type KeyframeProcess } from '../support/keyframe-server';
import { parseMetrics, total } from '../support/metrics';
import { loadMultivariant, multivariantUrl } from '../support/playback';
import { disposeKeyframe, expect, startKeyframe, test } from '../support/test';
import { CHUNK_GRANULE_BYTES, createUpload, getUpload, putChunk, queryReceived, rangeAfter, sha256 } from '../support/uploads';
import { WebhookReceiver } from '../../harness/webhook-receiver';

// What only a scaled-out deployment can get wrong, on the cluster of cluster mode (two app nodes and
// a worker on PostgreSQL + Redis + one bucket, behind a round-robin nginx: keyframe-cluster.ts).

test.skip(!isCluster(), 'runs only on the cluster (npm run test:e2e:cluster)');

let cluster: KeyframeCluster | undefined;

const startCluster = async (label: string, env: EnvOverrides = {}): Promise<KeyframeCluster> => {
  const started = await startKeyframe({ label, env });
  if (!(started instanceof KeyframeCluster)) throw new Error('E2E_CLUSTER=1 should have started a cluster');
  cluster = started;
  return started;
};

test.beforeEach(() => {
  test.setTimeout(180_000);
});

test.afterEach(async () => {
  await disposeKeyframe(cluster);
  cluster = undefined;
});

/** Encodes of `rung` counted by an app node since it started (loopback reads /metrics without a token). */
const encodesOn = async (node: KeyframeProcess, rung: string): Promise<number> => {
  const response = await fetch(node.url('/metrics'));
  const text = await response.text();
  expect(response.status, `${node.label} /metrics: ${text.slice(0, 300)}`).toBe(200);
  return total(parseMetrics(text), 'keyframe_segment_encodes_total', { rung });
};

test('20 concurrent cold requests for one segment, alternating between the app nodes: one encode in all, identical bytes', async ({ fixtures, media }) => {
  // Only what is asked for is encoded, so nothing else can count as an encode of the rung.
  const nodes = await startCluster('cluster-one-encode', { PREFETCH_SEGMENTS: '0', FILL_IDLE_ENCODERS: 'false' });
  const api = new Api(nodes.baseUrl, await nodes.createToken());
  const created = await api.createAsset({ inputs: [{ url: media.fileUrl(fixtures.file('video720p')) }], playback_policies: ['public'] });
  const asset = await api.waitForStatus(created.id, ['ready', 'errored'], 60_000);
  expect(asset.status, JSON.stringify(asset.errors)).toBe('ready');

  const multivariant = await loadMultivariant(multivariantUrl(nodes, asset.playback_ids[0].id as string));
  const variant = multivariant.video.find((candidate) => candidate.name === '720p') ?? multivariant.video.at(-1)!;
  const playlist = parseMediaPlaylist((await httpGet(variant.url)).text, variant.url);
  // The last segment: loading a multivariant playlist may warm segment 0.
  const segmentPath = new URL(playlist.segments.at(-1)!.url).pathname;

  const [appA, appB] = nodes.apps as [KeyframeProcess, KeyframeProcess];
  // Loading the multivariant playlist warmed segment 0 of its first rung in the background: once
  // segment 0 is served, and the counters have stopped moving, that encode is counted in `before`.
  expect((await httpGet(playlist.segments[0]!.url)).status).toBe(200);
  const encodesOnBoth = async () => [await encodesOn(appA, variant.name), await encodesOn(appB, variant.name)] as const;
  let before = await encodesOnBoth();
  for (let stable = 0; stable < 4; ) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = await encodesOnBoth();
    stable = now[0] === before[0] && now[1] === before[1] ? stable + 1 : 0;
    before = now;
  }
  const responses = await Promise.all(Array.from({ length: 20 }, (_, n) => httpGet((n % 2 === 0 ? appA : appB).url(segmentPath))));
  const after = await encodesOnBoth();

  expect(responses.map((response) => response.status)).toEqual(Array(20).fill(200));
  expect(new Set(responses.map((response) => response.body.toString('base64'))).size, 'identical bytes from both nodes').toBe(1);
  const [onA, onB] = [after[0] - before[0], after[1] - before[1]];
  expect(onA + onB, `encodes of ${variant.name} ${segmentPath}: app-a ${onA}, app-b ${onB}`).toBe(1);
});

test('an UpChunk-style upload whose chunks alternate between the app nodes completes intact; its shared parts are removed', async ({ fixtures }) => {
  const nodes = await startCluster('cluster-alternating-chunks');
  const api = new Api(nodes.baseUrl, await nodes.createToken());
  const file = await readFile(fixtures.path('video720p'));
  const total = file.length;
  const chunkBytes = CHUNK_GRANULE_BYTES;
  expect(total, 'the fixture must be long enough for four chunks').toBeGreaterThan(3 * chunkBytes);
  const upload = await createUpload(api, { new_asset_settings: { playback_policies: ['public'] } });
  const uploadUrl = new URL(upload.url as string);
  const apps = nodes.apps as [KeyframeProcess, KeyframeProcess];
  const urlOn = (node: KeyframeProcess) => node.url(`${uploadUrl.pathname}${uploadUrl.search}`);

  let last = await queryReceived(urlOn(apps[1]), total);
  for (let start = 0, n = 0; start < total; start += chunkBytes, n++) {
    const node = apps[n % 2]!;
    const end = Math.min(total, start + chunkBytes);
    last = await putChunk(urlOn(node), file, start, end);
    if (end < total) {
      expect(last.status, `chunk ${n} on ${node.label}: ${last.describe}`).toBe(308);
      expect(last.range, last.describe).toBe(rangeAfter(end));
      // The other node knows how much is stored too (a client resuming after an error asks it).
      const status = await queryReceived(urlOn(apps[(n + 1) % 2]!), total);
      expect(status.range, `status on the other node after chunk ${n}: ${status.describe}`).toBe(rangeAfter(end));
    }
    if (n === 1) {
      // A chunk re-sent to the other node (its answer was lost) changes nothing.
      const again = await putChunk(urlOn(apps[0]), file, start, end);
      expect(again.range, `chunk 1 re-sent: ${again.describe}`).toBe(rangeAfter(end));
    }
  }
  expect(last.status, `last chunk: ${last.describe}`).toBe(200);

  const uploaded = await getUpload(api, upload.id as string);
  const asset = await api.waitForStatus(uploaded.asset_id as string, ['ready', 'errored'], 60_000);
  expect(asset.status, JSON.stringify(asset.errors)).toBe('ready');
  const source = await nodes.storedSource(asset.id as string);
  expect(source && sha256(source), 'the stored source is byte-identical to the uploaded file').toBe(sha256(file));
  const firstPart = `uploads/${upload.id}/parts/0-${chunkBytes - 1}`;
  await expect.poll(async () => (await nodes.storedObject(firstPart)) === undefined, { timeout: 15_000, message: `${firstPart} is removed` }).toBe(true);
});

test('kill -9 of the worker mid-ingest: a second worker brings the asset to ready', async ({ fixtures, media }) => {
  const nodes = await startCluster('cluster-worker-kill9');
  const api = new Api(nodes.baseUrl, await nodes.createToken());
  const [doomed] = nodes.workers as [KeyframeProcess];

  const key = randomUUID();
  const created = await api.createAsset({
    inputs: [{ url: media.slowThenFastUrl(fixtures.file('video720p'), { delayMs: 20_000, key }) }],
    playback_policies: ['public'],
  });
  await media.waitForRequest(key);
  const survivor = await nodes.startWorker('worker-survivor');
  expect((await api.get(`/video/v1/assets/${created.id}`)).json.data.status).toBe('preparing');

  expect((await doomed.kill9()).signal).toBe('SIGKILL');
  const asset = await api.waitForStatus(created.id, ['ready', 'errored'], 120_000);
  expect(asset.status, JSON.stringify(asset.errors)).toBe('ready');
  expect(media.requestsMatching(key).length, 'the survivor downloaded the input again').toBeGreaterThanOrEqual(2);
  expect(survivor.running).toBe(true);
});

test('an app node restarted mid-way loses nothing: listings and playback on it and through the balancer', async ({ fixtures, media }) => {
  const nodes = await startCluster('cluster-app-restart');
  const token = await nodes.createToken();
  const api = new Api(nodes.baseUrl, token);
  const before = await api.createAsset({ inputs: [{ url: media.fileUrl(fixtures.file('videoSmall')) }], playback_policies: ['public'] });
  expect((await api.waitForStatus(before.id, ['ready', 'errored'], 60_000)).status).toBe('ready');

  // Stopped while an ingest is under way and the balancer keeps taking requests.
  const key = randomUUID();
  const during = await api.createAsset({
    inputs: [{ url: media.slowThenFastUrl(fixtures.file('videoSmall'), { delayMs: 3_000, key }) }],
    playback_policies: ['public'],
  });
  const [, appB] = nodes.apps as [KeyframeProcess, KeyframeProcess];
  expect((await appB.stop({ timeoutMs: 15_000 })).code).toBe(0);
  const whileDown = await api.createAsset({ inputs: [{ url: media.fileUrl(fixtures.file('videoSmall')) }], playback_policies: ['public'] });
  const restarted = await nodes.restartNode(appB);

  const ids = [before.id, during.id, whileDown.id] as string[];
  for (const baseUrl of [restarted.baseUrl, nodes.baseUrl]) {
    const on = new Api(baseUrl, token);
    for (const id of ids) {
      const asset = await on.waitForStatus(id, ['ready', 'errored'], 60_000);
      expect(asset.status, `${id} via ${baseUrl}: ${JSON.stringify(asset.errors)}`).toBe('ready');
    }
    expect(await on.listAllAssetIds()).toEqual(expect.arrayContaining(ids));
  }
  for (const id of ids) {
    const asset = (await api.get(`/video/v1/assets/${id}`)).json.data;
    const multivariant = await loadMultivariant(`${restarted.baseUrl}/${asset.playback_ids[0].id}.m3u8`);
    const variant = multivariant.video[0]!;
    const playlist = parseMediaPlaylist((await httpGet(variant.url)).text, variant.url);
    const segmentPath = new URL(playlist.segments[0]!.url).pathname;
    const [viaRestarted, viaBalancer] = await Promise.all([httpGet(restarted.url(segmentPath)), httpGet(nodes.url(segmentPath))]);
    expect([viaRestarted.status, viaBalancer.status], segmentPath).toEqual([200, 200]);
    expect(viaRestarted.body.equals(viaBalancer.body), `${segmentPath}: same bytes from the restarted node and the balancer`).toBe(true);
  }
});

test('two workers, several assets: every webhook event is delivered exactly once', async ({ fixtures, media }) => {
  const receiver = await WebhookReceiver.start();
  try {
    const nodes = await startCluster('cluster-webhooks', { WEBHOOK_RETRY_BASE_SECONDS: '0.5' });
    await receiver.subscribeTo(nodes);
    await nodes.startWorker('worker-b');
    const api = new Api(nodes.baseUrl, await nodes.createToken());

    const assets = await Promise.all(Array.from({ length: 6 }, () => api.createAsset({ inputs: [{ url: media.fileUrl(fixtures.file('videoSmall')) }] })));
    for (const asset of assets) expect((await api.waitForStatus(asset.id, ['ready', 'errored'], 90_000)).status).toBe('ready');
    await receiver.settle(['video.asset.created', 'video.asset.ready'], assets.length * 2);

    const ids = receiver.received.map((entry) => entry.event?.id as string);
    expect(new Set(ids).size, 'no event delivered twice').toBe(ids.length);
    expect(receiver.received.filter((entry) => entry.verifyError), 'every delivery verifies').toEqual([]);
    for (const asset of assets) {
      const types = receiver.received.filter((entry) => entry.event?.object?.id === asset.id).map((entry) => entry.event.type as string);
      expect(types.filter((type) => type === 'video.asset.created')).toHaveLength(1);
      expect(types.filter((type) => type === 'video.asset.ready')).toHaveLength(1);
    }
  } finally {
    await receiver.close();
  }
});
