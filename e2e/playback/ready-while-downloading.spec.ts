import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Api } from '../support/api';
import { httpGet } from '../support/hls';
import { assetDirsOf, isCluster, KeyframeCluster, type KeyframeServer } from '../support/keyframe-server';
import { decodeCheck, probeFrames } from '../support/media-probe';
import { loadMediaPlaylist } from '../support/playback-checks';
import { expect, loadMultivariant, multivariantUrl, test, type PlaybackFixtureName } from '../support/playback';
import { disposeKeyframe, restartKeyframe, startKeyframe } from '../support/test';

// Time-to-ready does not grow with the input's size: for an MP4 the index and both ends are
// enough to inspect it, so the asset is ready while the middle of its source is still
// downloading (the end comes from a range request). Everything that reads the source meanwhile
// waits for the bytes it needs instead of reading the file's unwritten holes.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
// About 6 s for the 50 MB input: long enough to watch, short enough for CI.
const BYTES_PER_SECOND = 8_000_000;

let server: KeyframeServer;
let api: Api;
test.beforeAll(async () => {
  server = await startKeyframe({ label: 'ready-while-downloading' });
  api = new Api(server.baseUrl, await server.createToken());
});
test.afterAll(async () => disposeKeyframe(server));


const expectDecodableSegment = async (init: Buffer, segment: Buffer, durationSeconds: number) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'keyframe-ready-early-'));
  try {
    const file = path.join(dir, 'segment.mp4');
    writeFileSync(file, Buffer.concat([init, segment]));
    const decoded = await decodeCheck(file);
    expect(decoded.code, decoded.stderr).toBe(0);
    expect(decoded.stderr.trim(), 'no decode errors').toBe('');
    // Zeros read from a hole of the partial file would not decode, or would decode short.
    const { frames } = await probeFrames(file, { select: 'v:0' });
    expect(Math.abs(frames.length - Math.round(durationSeconds * 30))).toBeLessThanOrEqual(1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

const expectSourceIdentical = async (on: KeyframeServer, assetId: string, sourceFile: string) => {
  if (on instanceof KeyframeCluster) {
    // A cluster keeps the source in the bucket (uploaded once complete), not on a node it could name.
    const stored = await on.storedSource(assetId, 60_000);
    expect(stored, `assets/${assetId}/source in the bucket`).toBeDefined();
    expect(sha256(stored!)).toBe(sha256(readFileSync(sourceFile)));
    for (const dir of assetDirsOf(on, assetId)) expect(existsSync(path.join(dir, 'source.part'))).toBe(false);
    return;
  }
  const stored = path.join(on.assetDir(assetId), 'source');
  const deadline = Date.now() + 60_000;
  while (!existsSync(stored) && Date.now() < deadline) await sleep(100);
  expect(statSync(stored).size).toBe(statSync(sourceFile).size);
  expect(sha256(readFileSync(stored))).toBe(sha256(readFileSync(sourceFile)));
  expect(existsSync(`${stored}.part`)).toBe(false);
};

const lowestRendition = async (on: KeyframeServer, playbackId: string) => {
  const multivariant = await loadMultivariant(multivariantUrl(on, playbackId));
  const lowest = multivariant.video.reduce((a, b) => (a.resolution!.height <= b.resolution!.height ? a : b));
  return loadMediaPlaylist(lowest.url);
};

for (const fixture of ['cbr360p40s', 'cbr360p40sIndexLast'] satisfies PlaybackFixtureName[]) {
  test(`${fixture}: ready while its source downloads; a segment from the middle is served from the real bytes`, async ({
    playbackFixtures,
    playbackMedia,
  }) => {
    test.setTimeout(120_000);
    const sourceFile = await playbackFixtures.ensure(fixture);
    const inputUrl = playbackMedia.throttledUrl(playbackFixtures.file(fixture), { bytesPerSecond: BYTES_PER_SECOND });
    const created = await api.createAsset({ inputs: [{ url: inputUrl }], playback_policies: ['public'] });
    const asset = await api.waitForStatus(created.id, ['ready', 'errored'], 60_000);
    expect(asset.status, JSON.stringify(asset.errors)).toBe('ready');

    const fetches = playbackMedia.requestsMatching(encodeURIComponent(playbackFixtures.file(fixture)));
    const mainDownload = fetches.find((request) => request.range === null);
    expect(mainDownload, 'the full download was started').toBeDefined();
    expect(mainDownload!.finishedAt, 'the full download was still running when the asset was ready').toBeNull();
    // The end of the file came from range requests: one for a faststart file; for a moov-last one
    // its index first (its duration tells how much media to fetch), then the media just before it.
    const ranges = fetches
      .filter((request) => request.range !== null)
      .map((request) => (/^bytes=(\d+)-(\d+)$/.exec(request.range!) ?? []).slice(1).map(Number));
    expect(ranges.length, 'the end of the file came from range requests').toBe(fixture.endsWith('IndexLast') ? 2 : 1);
    expect(ranges[0]![1], 'the first range runs to the end of the file').toBe(statSync(sourceFile).size - 1);
    if (ranges.length === 2) expect(ranges[1]![1], 'the media just before the index').toBe(ranges[0]![0]! - 1);
    expect(Math.abs(asset.duration - 40)).toBeLessThan(0.1);

    // A segment from the middle of the lowest rung, asked for before its bytes have arrived.
    const playbackId = asset.playback_ids[0].id as string;
    const playlist = await lowestRendition(server, playbackId);
    const middle = Math.floor(playlist.segments.length / 2);
    expect(mainDownload!.finishedAt, 'the segment is asked for while the source is still downloading').toBeNull();
    const [init, segment] = await Promise.all([httpGet(playlist.map!.url), httpGet(playlist.segments[middle]!.url)]);
    expect(segment.status, segment.text.slice(0, 300)).toBe(200);

    await expectDecodableSegment(init.body, segment.body, playlist.segments[middle]!.duration);

    // The finished source is byte-identical to the input: the tail and the main download agree.
    await expectSourceIdentical(server, created.id, sourceFile);
  });
}

test('a server that trickles the range request does not hold the asset: it is ready once the plain download completes', async ({
  playbackFixtures,
  playbackMedia,
}) => {
  test.setTimeout(120_000);
  const sourceFile = await playbackFixtures.ensure('cbr360p40s');
  const inputUrl = playbackMedia.rangesTrickleUrl(playbackFixtures.file('cbr360p40s'));
  const created = await api.createAsset({ inputs: [{ url: inputUrl }], playback_policies: ['public'] });
  const asset = await api.waitForStatus(created.id, ['ready', 'errored'], 60_000);
  expect(asset.status, JSON.stringify(asset.errors)).toBe('ready');
  const fetches = playbackMedia.requestsMatching(`/ranges-trickle/${encodeURIComponent(playbackFixtures.file('cbr360p40s'))}`);
  expect(fetches.some((request) => request.range !== null), 'the tail was asked for').toBe(true);
  await expectSourceIdentical(server, created.id, sourceFile);
});

test('a source whose download breaks after the asset is ready turns the asset errored', async ({ playbackFixtures, playbackMedia }) => {
  test.setTimeout(120_000);
  await playbackFixtures.ensure('cbr360p40s');
  // Cut about 10 s in: ready takes a few seconds on a loaded 2-core box (CI saw an earlier cut,
  // 3.75 s in, arrive before the probe had finished, so the asset errored without being ready first).
  const inputUrl = playbackMedia.throttledUrl(playbackFixtures.file('cbr360p40s'), { bytesPerSecond: 4_000_000, cutAt: 40_000_000 });
  const created = await api.createAsset({ inputs: [{ url: inputUrl }], playback_policies: ['public'] });
  const ready = await api.waitForStatus(created.id, ['ready', 'errored'], 60_000);
  expect(ready.status).toBe('ready');
  const errored = await api.waitForStatus(created.id, ['errored'], 60_000);
  expect(errored.status).toBe('errored');
  expect(errored.errors.type).toBe('download_failed');
  expect(errored.errors.messages.join(' ')).toMatch(/interrupted|closed before the download finished/);
  const playback = await httpGet(multivariantUrl(server, ready.playback_ids[0].id));
  expect(playback.status, 'an errored asset is not played').toBe(412);
  for (const dir of assetDirsOf(server, created.id)) expect(existsSync(path.join(dir, 'source.part'))).toBe(false);
});

test('SIGTERM while a ready asset\'s source downloads: the restarted server fetches it again and serves from it', async ({
  playbackFixtures,
  playbackMedia,
}) => {
  test.skip(isCluster(), 'checks what the interrupted download left in one server\'s DATA_DIR');
  test.setTimeout(150_000);
  const sourceFile = await playbackFixtures.ensure('cbr360p40s');
  const first = await startKeyframe({ label: 'ready-while-downloading-restart' });
  let second: KeyframeServer | undefined;
  try {
    const token = await first.createToken();
    const inputUrl = playbackMedia.throttledUrl(playbackFixtures.file('cbr360p40s'), { bytesPerSecond: BYTES_PER_SECOND });
    const created = await new Api(first.baseUrl, token).createAsset({ inputs: [{ url: inputUrl }], playback_policies: ['public'] });
    const ready = await new Api(first.baseUrl, token).waitForStatus(created.id, ['ready', 'errored'], 60_000);
    expect(ready.status, JSON.stringify(ready.errors)).toBe('ready');

    const signalledAt = Date.now();
    const exit = await first.stop({ timeoutMs: 15_000 });
    expect(exit.at - signalledAt).toBeLessThan(15_000);
    expect(exit.code, JSON.stringify(exit)).toBe(0);
    const leftovers = readdirSync(first.assetDir(created.id));
    expect(leftovers, 'the interrupted download left neither a source nor a partial file').not.toContain('source');
    expect(leftovers).not.toContain('source.part');

    second = await restartKeyframe(first, { label: 'ready-while-downloading-restart-second' });
    const api2 = new Api(second.baseUrl, token);
    const { json } = await api2.get(`/video/v1/assets/${created.id}`);
    expect(json.data.status).toBe('ready');
    // The last segment needs the end of the file: asked for at once, it waits for the new download.
    const playlist = await lowestRendition(second, ready.playback_ids[0].id as string);
    const last = playlist.segments.at(-1)!;
    const [init, segment] = await Promise.all([httpGet(playlist.map!.url), httpGet(last.url)]);
    expect(segment.status, segment.text.slice(0, 300)).toBe(200);
    await expectDecodableSegment(init.body, segment.body, last.duration);
    await expectSourceIdentical(second, created.id, sourceFile);
    const fullDownloads = playbackMedia.requestsMatching(`/throttled/${encodeURIComponent(playbackFixtures.file('cbr360p40s'))}`).filter(
      (request) => request.range === null && request.at >= signalledAt,
    );
    expect(fullDownloads, 'the restarted server downloaded the source again').toHaveLength(1);
  } finally {
    await disposeKeyframe(first, second);
  }
});
