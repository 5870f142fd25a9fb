import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Api } from '../support/api';
import { probeDuration } from '../support/fixtures';
import { assetDirsOf, dataDirsOf, isCluster, type KeyframeServer } from '../support/keyframe-server';
import { disposeKeyframe, expect, restartKeyframe, startKeyframe, test } from '../support/test';

// Ingest jobs are durable: an asset that was mid-ingest when the server died (kill -9) or was
// stopped (SIGTERM) is picked up again by the next server process on the same DATA_DIR.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Partial files under any of `dirs` (a server's DATA_DIR, or each node's). */
const partFilesUnder = (dirs: string[]): string[] =>
  dirs.flatMap((dir) => (existsSync(dir) ? readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.part')) : []));

/** Waits until one of `files` exists (the node doing the work is the one that writes it). */
const waitForAnyFile = async (files: string[], timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  while (!files.some((file) => existsSync(file))) {
    if (Date.now() > deadline) throw new Error(`none of ${files.join(', ')} appeared within ${timeoutMs} ms`);
    await sleep(50);
  }
};

let servers: KeyframeServer[] = [];

test.beforeEach(() => {
  // Two server processes per test, plus a deliberately slow download.
  test.setTimeout(90_000);
});

test.afterEach(async () => {
  await disposeKeyframe(...servers);
  servers = [];
});

test('kill -9 while preparing; a new process on the same DATA_DIR finishes the ingest', async ({ media, fixtures }) => {
  // On a cluster the job is BullMQ's: the killed worker's lock must run out and the stalled check
  // see it before the restarted worker takes the job over (docs/scaling-out.md: at most ~45 s).
  const recoveryMs = isCluster() ? 90_000 : 45_000;
  if (isCluster()) test.setTimeout(recoveryMs + 60_000);
  const first = await startKeyframe({ label: 'restart-kill9' });
  servers.push(first);
  const token = await first.createToken();

  // The media server holds the response back for 4 s, so the asset is certainly mid-ingest.
  const key = randomUUID();
  const created = await new Api(first.baseUrl, token).createAsset({
    inputs: [{ url: media.slowThenFastUrl(fixtures.file('video720p'), { delayMs: 4_000, key }) }],
    playback_policies: ['public'],
  });
  await media.waitForRequest(key);
  const during = await new Api(first.baseUrl, token).get(`/video/v1/assets/${created.id}`);
  expect(during.json.data.status).toBe('preparing');

  const exit = await first.kill9();
  expect(exit.signal).toBe('SIGKILL');

  const second = await restartKeyframe(first, { label: 'restart-kill9-second' });
  servers.push(second);
  expect(dataDirsOf(second)).toEqual(dataDirsOf(first));
  const api = new Api(second.baseUrl, token); // tokens live in DATA_DIR too

  const asset = await api.waitForStatus(created.id, ['ready', 'errored'], recoveryMs);
  expect(asset.status, JSON.stringify(asset.errors)).toBe('ready');
  expect(Math.abs(asset.duration - (await probeDuration(fixtures.path('video720p'))))).toBeLessThanOrEqual(0.1);
  expect(asset.tracks.map((track: { type: string }) => track.type).sort()).toEqual(['audio', 'video']);
  expect(asset.playback_ids).toEqual([{ id: expect.any(String), policy: 'public' }]);
  expect(media.requestsMatching(key).length, 'the restarted server downloaded the input again').toBeGreaterThanOrEqual(2);
  expect(partFilesUnder(assetDirsOf(second, created.id))).toEqual([]);
});

test('SIGTERM mid-download: exits within 15 s leaving no .part files; the restart finishes the ingest', async ({
  media,
  fixtures,
}) => {
  const first = await startKeyframe({ label: 'restart-sigterm' });
  servers.push(first);
  const token = await first.createToken();

  // First request for this key trickles forever, so the download is stuck half-way with a
  // partial file on disk; the retry after the restart gets the file at full speed.
  const key = randomUUID();
  const created = await new Api(first.baseUrl, token).createAsset({
    inputs: [{ url: media.slowOnceUrl(fixtures.file('video720p'), key) }],
  });
  await media.waitForRequest(key);
  await waitForAnyFile(assetDirsOf(first, created.id).map((dir) => path.join(dir, 'source.part')), 15_000);
  const during = await new Api(first.baseUrl, token).get(`/video/v1/assets/${created.id}`);
  expect(during.json.data.status).toBe('preparing');

  const signalledAt = Date.now();
  const exit = await first.stop({ timeoutMs: 15_000 });
  const shutdownMs = exit.at - signalledAt;
  expect(shutdownMs).toBeLessThan(15_000);
  expect(exit.code, `exit ${JSON.stringify(exit)}`).toBe(0);
  expect(partFilesUnder(dataDirsOf(first))).toEqual([]);

  const second = await restartKeyframe(first, { label: 'restart-sigterm-second' });
  servers.push(second);
  const asset = await new Api(second.baseUrl, token).waitForStatus(created.id, ['ready', 'errored'], 45_000);
  expect(asset.status, JSON.stringify(asset.errors)).toBe('ready');
  expect(Math.abs(asset.duration - (await probeDuration(fixtures.path('video720p'))))).toBeLessThanOrEqual(0.1);
  expect(media.requestsMatching(key)).toHaveLength(2);
  expect(partFilesUnder(dataDirsOf(second))).toEqual([]);
});
