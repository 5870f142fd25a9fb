import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { autogroupNiceOf, niceOf } from '../../lib/media/test-support/scheduling';
import { DEMAND_HOLD_MS } from '../../lib/services/playback/encode-demand';
import { Api } from '../support/api';
import { httpGet, parseMediaPlaylist, type MediaPlaylist } from '../support/hls';
import { assetDirsOf, isCluster, type KeyframeServer } from '../support/keyframe-server';
import { decodeCheck, probeFrames } from '../support/media-probe';
import { createPlayableAsset, expect, loadMultivariant, multivariantUrl, test, type PlayableAsset } from '../support/playback';
import { isFfmpeg, scalesToWidth, waitForIdleEncoders, watchProcesses, type ProcessEntry } from '../../harness/processes';
import { disposeKeyframe, restartKeyframe, startKeyframe } from '../support/test';

// Just-in-time encoding, observed from the outside: what is on disk (DATA_DIR/assets/<id>/hls),
// which ffmpeg processes the server spawns (/proc, descendants of the server only), and what the
// HTTP answers are when encodes are requested concurrently, killed, or evicted from the cache.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

type SegmentFile = { rung: string; index: number; file: string; size: number; ino: number; mtimeMs: number };

/** Every `<n>.m4s` of every video rung (everything under hls/ except audio/), on every node of the server. */
const videoSegmentFiles = (server: KeyframeServer, assetId: string): SegmentFile[] =>
  assetDirsOf(server, assetId).flatMap((assetDir) => videoSegmentFilesIn(path.join(assetDir, 'hls')));

const videoSegmentFilesIn = (hls: string): SegmentFile[] => {
  if (!existsSync(hls)) return [];
  const found: SegmentFile[] = [];
  for (const rung of readdirSync(hls)) {
    const dir = path.join(hls, rung);
    if (rung === 'audio' || !statSync(dir).isDirectory()) continue;
    for (const name of readdirSync(dir)) {
      const match = name.match(/^(\d+)\.m4s$/);
      if (!match) continue;
      try {
        const info = statSync(path.join(dir, name));
        found.push({ rung, index: Number(match[1]), file: path.join(dir, name), size: info.size, ino: info.ino, mtimeMs: info.mtimeMs });
      } catch {
        // evicted while listing
      }
    }
  }
  return found;
};

/**
 * Files in the video rung folders (hls/<rung>/, not audio/) that are neither `<n>.m4s` nor
 * `init.mp4`: temp or partial outputs of an encode.
 */
const strayVideoFiles = (server: KeyframeServer, assetId: string): string[] =>
  assetDirsOf(server, assetId).flatMap((assetDir) => strayVideoFilesIn(path.join(assetDir, 'hls')));

const strayVideoFilesIn = (hls: string): string[] => {
  if (!existsSync(hls)) return [];
  const stray: string[] = [];
  for (const rung of readdirSync(hls)) {
    const dir = path.join(hls, rung);
    if (rung === 'audio' || !statSync(dir).isDirectory()) continue;
    for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
      const full = path.join(dir, name);
      if (existsSync(full) && statSync(full).isFile() && !/^(\d+\.m4s|init\.mp4)$/.test(name)) stray.push(`${rung}/${name}`);
    }
  }
  return stray;
};

const waitUntilStable = async (read: () => string, { quietMs = 3_000, timeoutMs = 60_000 } = {}) => {
  const deadline = Date.now() + timeoutMs;
  let last = read();
  let since = Date.now();
  while (Date.now() < deadline) {
    await sleep(250);
    const now = read();
    if (now !== last) {
      last = now;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) {
      return;
    }
  }
};

let workDir: string;
test.beforeAll(() => {
  workDir = mkdtempSync(path.join(os.tmpdir(), 'keyframe-e2e-jit-'));
});
test.afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

type Decoded = { ok: boolean; code: number | null; stderr: string; frames: number; firstPts: number; lastPts: number };

/** Decodes init + one segment; reports errors and the frame count. */
const decodeSegment = async (init: Buffer, segment: Buffer, label: string): Promise<Decoded> => {
  const file = path.join(workDir, `${label}-${Date.now()}-${Math.random().toString(36).slice(2)}.mp4`);
  await writeFile(file, Buffer.concat([init, segment]));
  const check = await decodeCheck(file);
  let frames: Awaited<ReturnType<typeof probeFrames>>['frames'] = [];
  try {
    frames = (await probeFrames(file, { select: 'v:0' })).frames;
  } catch {
    frames = [];
  }
  return {
    ok: check.code === 0 && check.stderr.trim() === '',
    code: check.code,
    stderr: check.stderr,
    frames: frames.length,
    firstPts: frames[0]?.pts ?? Number.NaN,
    lastPts: frames.at(-1)?.pts ?? Number.NaN,
  };
};

type Rendition = { name: string; width: number; playlist: MediaPlaylist; init: Buffer; fps: number };

const loadRendition = async (server: KeyframeServer, asset: PlayableAsset, name: string): Promise<Rendition> => {
  const multivariant = await loadMultivariant(multivariantUrl(server, asset.playbackId));
  const variant = multivariant.video.find((candidate) => candidate.name === name);
  expect(variant, `${name} in ${multivariant.text}`).toBeDefined();
  const response = await httpGet(variant!.url);
  expect(response.status, variant!.url).toBe(200);
  const playlist = parseMediaPlaylist(response.text, variant!.url);
  const init = await httpGet(playlist.map!.url);
  expect(init.status, playlist.map!.url).toBe(200);
  return { name, width: variant!.resolution!.width, playlist, init: init.body, fps: variant!.frameRate ?? 30 };
};

const segmentStart = (playlist: MediaPlaylist, index: number) =>
  playlist.segments.slice(0, index).reduce((sum, segment) => sum + segment.duration, 0);

/** ffmpeg processes of this server encoding `assetId` at the rung's width. */
const encoderFor = (assetId: string, width: number) => (entry: ProcessEntry) =>
  isFfmpeg(entry) && entry.command.includes(assetId) && scalesToWidth(entry, width);

const seekOf = (entry: ProcessEntry): number => {
  const at = entry.argv.indexOf('-ss');
  return at === -1 ? 0 : Number(entry.argv[at + 1]);
};

test.describe('(a) nothing is encoded before it is asked for', () => {
  let server: KeyframeServer;
  let api: Api;
  test.beforeAll(async () => {
    // Filling idle encoders would encode what nobody asked for: this describes the bare JIT path.
    server = await startKeyframe({ label: 'jit-cold', env: { FILL_IDLE_ENCODERS: 'false' } });
    api = new Api(server.baseUrl, await server.createToken());
  });
  test.afterAll(async () => disposeKeyframe(server));

  test('no video segment on disk at ready; GET segment 3 creates segment 3 (and maybe 4–6), never 0–2', async ({ playbackFixtures, playbackMedia }) => {
    await playbackFixtures.ensure('long1080p');
    const asset = await createPlayableAsset(api, playbackMedia.fileUrl(playbackFixtures.file('long1080p')));
    expect(videoSegmentFiles(server, asset.assetId), 'video segments on disk when the asset turned ready').toEqual([]);
    await sleep(2_000);
    expect(videoSegmentFiles(server, asset.assetId), 'video segments on disk 2 s after ready, before any playback request').toEqual([]);

    // Straight to the segment URL: no playlist request that could warm anything up.
    const url = server.url(`/${asset.playbackId}/360p/3.m4s`);
    const response = await httpGet(url);
    expect(response.status, `GET ${url}: ${response.text.slice(0, 200)}`).toBe(200);
    expect(response.body.length).toBeGreaterThan(0);

    const listing = () =>
      videoSegmentFiles(server, asset.assetId)
        .map((entry) => `${entry.rung}/${entry.index}:${entry.size}`)
        .sort()
        .join(' ');
    await waitUntilStable(listing);
    const files = videoSegmentFiles(server, asset.assetId);
    const described = files.map((entry) => `${entry.rung}/${entry.index}.m4s`).sort();
    expect(described, 'segment 3 of 360p is on disk').toContain('360p/3.m4s');
    for (const entry of files) {
      expect.soft(entry.rung, `only 360p was requested, found ${described.join(', ')}`).toBe('360p');
      expect.soft([3, 4, 5, 6], `360p/${entry.index}.m4s should not exist (found ${described.join(', ')})`).toContain(entry.index);
    }
    const onDisk = files.find((entry) => entry.rung === '360p' && entry.index === 3);
    if (onDisk) expect.soft(sha256(readFileSync(onDisk.file)), 'the cached file is what was served').toBe(sha256(response.body));
  });
});

test.describe('(b, c) concurrent and interrupted encodes', () => {
  let server: KeyframeServer;
  let api: Api;
  let asset: PlayableAsset;
  let top: Rendition;
  test.beforeAll(async ({ playbackFixtures, playbackMedia }) => {
    test.setTimeout(120_000);
    server = await startKeyframe({ label: 'jit-concurrency', env: { FILL_IDLE_ENCODERS: 'false' } });
    api = new Api(server.baseUrl, await server.createToken());
    await playbackFixtures.ensure('long1080p');
    asset = await createPlayableAsset(api, playbackMedia.fileUrl(playbackFixtures.file('long1080p')));
    top = await loadRendition(server, asset, '1080p');
  });
  test.afterAll(async () => disposeKeyframe(server));

  test('(b) 20 simultaneous requests for one cold segment: all 200, identical bytes, exactly one ffmpeg encode', async ({}, testInfo) => {
  test.skip(isCluster(), 'counts the ffmpeg children of the one server process (/proc); e2e/api/cluster.spec.ts counts encodes across nodes from /metrics');
    // The last segment: prefetch has nothing after it, so every encode of this rung is for it.
    const index = top.playlist.segments.length - 1;
    const url = top.playlist.segments[index]!.url;
    const file = path.join(server.assetDir(asset.assetId), 'hls', top.name, `${index}.m4s`);
    expect(existsSync(file), `${file} is cold before the burst`).toBe(false);

    const watch = watchProcesses(server.pid, encoderFor(asset.assetId, top.width), { intervalMs: 20 });
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => httpGet(url).catch((error: unknown) => ({ status: -1, body: Buffer.alloc(0), text: String(error) }))),
    );
    await sleep(1_500); // a late duplicate encode would show up here
    await watch.stop();
    const encodes = [...watch.seen.values()];
    await testInfo.attach('encodes.json', {
      body: JSON.stringify({ url, encodes: encodes.map((entry) => ({ pid: entry.pid, command: entry.command, ms: entry.lastSeen - entry.firstSeen })) }, null, 2),
      contentType: 'application/json',
    });

    expect(responses.map((response) => response.status), `statuses of 20 concurrent GET ${url}`).toEqual(Array(20).fill(200));
    const hashes = new Set(responses.map((response) => sha256(response.body)));
    expect(hashes.size, 'all 20 bodies are byte-identical').toBe(1);
    expect(responses[0]!.body.length).toBeGreaterThan(0);
    expect(encodes.length, `ffmpeg encodes of ${top.name} for asset ${asset.assetId} during the burst:\n${encodes.map((entry) => entry.command).join('\n')}`).toBe(1);

    // The cached file is what was served and is not rewritten afterwards.
    expect(existsSync(file), `${file} after the burst`).toBe(true);
    const before = statSync(file);
    expect(sha256(readFileSync(file)), 'cached file = served bytes').toBe([...hashes][0]);
    const again = await httpGet(url);
    expect(again.status).toBe(200);
    expect(sha256(again.body), 'a later request serves the same bytes').toBe([...hashes][0]);
    await sleep(1_000);
    const after = statSync(file);
    expect({ ino: after.ino, mtimeMs: after.mtimeMs }, 'the segment file was not re-encoded').toEqual({ ino: before.ino, mtimeMs: before.mtimeMs });

    const decoded = await decodeSegment(top.init, responses[0]!.body, 'burst');
    expect(decoded.stderr.trim(), 'decode errors').toBe('');
    expect(decoded.ok).toBe(true);
    expect(decoded.frames).toBe(Math.round(top.playlist.segments[index]!.duration * top.fps));
  });

  test('(c) kill -9 of the ffmpeg encoding a cold segment: 5xx or a complete retry, no partial file, next request works', async ({}, testInfo) => {
  test.skip(isCluster(), 'kills an ffmpeg child of the one server process (/proc) and checks its DATA_DIR');
    // A full-length (4 s) cold segment near the end, encoded at 1080p so it runs for a while.
    const index = top.playlist.segments.length - 2;
    const segment = top.playlist.segments[index]!;
    const start = segmentStart(top.playlist, index);
    const expectedFrames = Math.round(segment.duration * top.fps);
    const rungDir = path.join(server.assetDir(asset.assetId), 'hls', top.name);
    const file = path.join(rungDir, `${index}.m4s`);
    expect(existsSync(file), `${file} is cold`).toBe(false);

    const isTarget = (entry: ProcessEntry) => encoderFor(asset.assetId, top.width)(entry) && Math.abs(seekOf(entry) - start) < 1;
    const watch = watchProcesses(server.pid, isTarget, { intervalMs: 20 });
    const pending = httpGet(segment.url).then(
      (response) => ({ status: response.status, body: response.body, error: undefined as string | undefined }),
      (error: unknown) => ({ status: -1, body: Buffer.alloc(0), error: String(error) }),
    );

    const deadline = Date.now() + 30_000;
    while (watch.seen.size === 0 && Date.now() < deadline) await sleep(20);
    const [victim] = [...watch.seen.values()];
    expect(victim, `an ffmpeg process encoding ${top.name} at -ss ≈ ${start} for asset ${asset.assetId}`).toBeDefined();
    await sleep(400); // let it write part of its output
    // The watch only reports descendants of the server this test started.
    process.kill(victim!.pid, 'SIGKILL');
    const killedAt = Date.now();

    const first = await pending;
    await sleep(2_000);
    await watch.stop();
    await testInfo.attach('kill.json', {
      body: JSON.stringify(
        { url: segment.url, victim: victim!.command, status: first.status, error: first.error, bytes: first.body.length, encodes: [...watch.seen.values()].map((entry) => ({ pid: entry.pid, at: entry.firstSeen - killedAt })) },
        null,
        2,
      ),
      contentType: 'application/json',
    });

    if (first.status === 200 && !first.error) {
      // Retried internally: then the answer must be a whole segment.
      const decoded = await decodeSegment(top.init, first.body, 'retried');
      expect(decoded.stderr.trim(), 'a 200 after the kill must be a complete segment').toBe('');
      expect(decoded.frames, 'frames in the 200 answered after the kill').toBe(expectedFrames);
    } else {
      expect(first.status === -1 || first.status >= 500, `status after the kill: ${first.status} ${first.error ?? ''}`).toBe(true);
    }

    // No partial output left behind: the segment is absent or complete, and no temp files remain.
    expect(strayVideoFiles(server, asset.assetId), 'temp/partial files in the video rung folders').toEqual([]);
    if (existsSync(file)) {
      const decoded = await decodeSegment(top.init, readFileSync(file), 'on-disk');
      expect(decoded.stderr.trim(), `${file} left after the kill decodes cleanly`).toBe('');
      expect(decoded.frames, `${file} left after the kill is complete`).toBe(expectedFrames);
    }

    const later = await httpGet(segment.url);
    expect(later.status, `GET ${segment.url} after the kill`).toBe(200);
    const decoded = await decodeSegment(top.init, later.body, 'after-kill');
    expect(decoded.stderr.trim()).toBe('');
    expect(decoded.ok).toBe(true);
    expect(decoded.frames).toBe(expectedFrames);
    expect(decoded.firstPts, 'segment starts at its place on the timeline').toBeCloseTo(start, 2);
  });

  test('a viewer switching rungs stops the unwatched prefetch of the rung it left', async () => {
  test.skip(isCluster(), 'watches the ffmpeg children of the one server process (/proc); a cluster spreads them over three nodes');
    // On 2 cores the prefetch left running beside a switch's cold segment is what made it late.
    const from = await loadRendition(server, asset, '540p');
    const to = await loadRendition(server, asset, '720p');
    const index = 3;
    const nextStart = segmentStart(from.playlist, index + 1);
    const left = path.join(server.assetDir(asset.assetId), 'hls', from.name, `${index + 1}.m4s`);
    // The earlier tests leave 1080p prefetches running or queued; on a loaded CI machine they held
    // the one slot prefetches may take past this test's wait for its own prefetch.
    await waitForIdleEncoders(server.pid);
    // Their viewers also stay counted in the encoders' promised demand for DEMAND_HOLD_MS after
    // their last request: measured under their own contention, 1080p left no room to admit this
    // test's new viewer, and a viewer not admitted gets no prefetch (encode-demand.ts).
    await sleep(DEMAND_HOLD_MS);
    const isPrefetch = (entry: ProcessEntry) => encoderFor(asset.assetId, from.width)(entry) && Math.abs(seekOf(entry) - nextStart) < 1;
    const watch = watchProcesses(server.pid, isPrefetch, { intervalMs: 10 });
    try {
      expect((await httpGet(from.playlist.segments[index]!.url)).status).toBe(200);
      // Started once the segment asked for is served; on a loaded machine that can take a while.
      const deadline = Date.now() + 30_000;
      while (watch.seen.size === 0 && Date.now() < deadline) await sleep(10);
      expect(watch.seen.size, `the prefetch of ${from.name} segment ${index + 1} started`).toBe(1);

      const switched = await httpGet(to.playlist.segments[index + 1]!.url);
      expect(switched.status).toBe(200);
      const decoded = await decodeSegment(to.init, switched.body, 'switched');
      expect(decoded.stderr.trim()).toBe('');
      await sleep(1_500);
      expect(existsSync(left), `${left}: the prefetch nobody waited for was stopped, not finished`).toBe(false);
      expect(strayVideoFiles(server, asset.assetId), 'temp/partial files in the video rung folders').toEqual([]);
    } finally {
      await watch.stop();
    }
  });

  test('a prefetch asked for by several requests of one viewer is not started again once the switch dropped it', async () => {
  test.skip(isCluster(), 'watches the ffmpeg children of the one server process (/proc); a cluster spreads them over three nodes');
    // Segment index + 3 of the rung left is in the prefetch window of segments index, index + 1 and
    // index + 2: several callers share its encode. Dropping it must not make one of them start it
    // over (that encode then ran beside the cold segment of the rung the viewer switched to).
    const from = await loadRendition(server, asset, '540p');
    const to = await loadRendition(server, asset, '720p');
    const index = 5;
    const leftIndex = index + 3;
    const leftStart = segmentStart(from.playlist, leftIndex);
    await waitForIdleEncoders(server.pid);
    const isPrefetch = (entry: ProcessEntry) => encoderFor(asset.assetId, from.width)(entry) && Math.abs(seekOf(entry) - leftStart) < 1;
    const watch = watchProcesses(server.pid, isPrefetch, { intervalMs: 10 });
    try {
      for (let asked = index; asked < leftIndex; asked++) expect((await httpGet(from.playlist.segments[asked]!.url)).status).toBe(200);
      // Started once the segment asked for is served; on a loaded machine that can take a while.
      const deadline = Date.now() + 30_000;
      while (watch.seen.size === 0 && Date.now() < deadline) await sleep(10);
      expect(watch.seen.size, `the prefetch of ${from.name} segment ${leftIndex} started`).toBe(1);

      expect((await httpGet(to.playlist.segments[leftIndex]!.url)).status).toBe(200);
      await sleep(3_000);
      expect([...watch.seen.values()].map((entry) => entry.pid), `encodes of ${from.name} segment ${leftIndex}: the one dropped, none after it`).toHaveLength(1);
    } finally {
      await watch.stop();
    }
  });
});

test.describe('background rungs yield the CPU', () => {
  let server: KeyframeServer;
  test.beforeAll(async () => {
    server = await startKeyframe({ label: 'jit-background-priority' });
  });
  test.afterAll(async () => disposeKeyframe(server));

  // A 2160p segment takes longer than its duration on 2 cores; at equal priority it would halve
  // the CPU of the segment a viewer is waiting for. Each ffmpeg runs in a session of its own, so
  // with scheduler autogroups the session's nice value is the one that counts.
  test('the ffmpeg encoding a 2160p background segment runs at nice 19, its session too', async ({ playbackFixtures, playbackMedia }) => {
  test.skip(isCluster(), 'watches the ffmpeg children of the one server process (/proc); a cluster spreads them over three nodes');
    test.setTimeout(120_000);
    const api = new Api(server.baseUrl, await server.createToken());
    await playbackFixtures.ensure('uhd2160p');
    const watch = watchProcesses(server.pid, (entry) => isFfmpeg(entry) && scalesToWidth(entry, 3840), { intervalMs: 20 });
    const priorities: { pid: number; nice: number; autogroup: number | null }[] = [];
    try {
      await createPlayableAsset(api, playbackMedia.fileUrl(playbackFixtures.file('uhd2160p')), { max_resolution_tier: '2160p' });
      const deadline = Date.now() + 60_000;
      while (priorities.length === 0 && Date.now() < deadline) {
        for (const entry of watch.seen.values()) {
          try {
            priorities.push({ pid: entry.pid, nice: niceOf(entry.pid), autogroup: autogroupNiceOf(entry.pid) });
          } catch {
            // It finished between the listing and the read; the next one will do.
          }
        }
        await sleep(20);
      }
    } finally {
      await watch.stop();
    }
    expect(priorities.length, 'a 2160p background encode was seen running').toBeGreaterThan(0);
    for (const sample of priorities) {
      expect(sample.nice, `nice of ffmpeg ${sample.pid}`).toBe(19);
      if (sample.autogroup !== null) expect(sample.autogroup, `autogroup nice of ffmpeg ${sample.pid}`).toBe(19);
    }
  });
});

test.describe('(d) rendition cache with RENDITION_CACHE_MAX_BYTES', () => {
  const CAP = 600_000;
  let server: KeyframeServer;
  let api: Api;
  test.beforeAll(async () => {
    server = await startKeyframe({ label: 'jit-cache', env: { RENDITION_CACHE_MAX_BYTES: String(CAP) } });
    api = new Api(server.baseUrl, await server.createToken());
  });
  test.afterAll(async () => disposeKeyframe(server));

  test('video segments on disk stay under the cap; an evicted segment is re-encoded and decodes', async ({ playbackFixtures, playbackMedia }, testInfo) => {
  test.skip(isCluster(), 'checks one server\'s DATA_DIR against its cache cap; in a cluster the bucket holds what a node evicts');
    test.setTimeout(300_000); // two rungs x nine cold segments from a long-GOP 1080p source
    await playbackFixtures.ensure('long1080p');
    const asset = await createPlayableAsset(api, playbackMedia.fileUrl(playbackFixtures.file('long1080p')));
    const renditions = [await loadRendition(server, asset, '270p'), await loadRendition(server, asset, '360p')];

    let peak = 0;
    let peakListing = '';
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const files = videoSegmentFiles(server, asset.assetId);
        const total = files.reduce((sum, entry) => sum + entry.size, 0);
        if (total > peak) {
          peak = total;
          peakListing = files.map((entry) => `${entry.rung}/${entry.index}=${entry.size}`).join(' ');
        }
        await sleep(50);
      }
    })();

    const served = new Map<string, { body: Buffer; rendition: Rendition; index: number }>();
    let largest = 0;
    let requested = 0;
    try {
      for (const rendition of renditions) {
        for (const [index, segment] of rendition.playlist.segments.entries()) {
          const response = await httpGet(segment.url);
          expect(response.status, `GET ${segment.url}`).toBe(200);
          served.set(`${rendition.name}/${index}`, { body: response.body, rendition, index });
          largest = Math.max(largest, response.body.length);
          requested += response.body.length;
        }
      }
      await sleep(3_000); // let prefetches finish and the cache settle
    } finally {
      sampling = false;
      await sampler;
    }
    const settled = videoSegmentFiles(server, asset.assetId);
    const settledTotal = settled.reduce((sum, entry) => sum + entry.size, 0);
    await testInfo.attach('cache.json', {
      body: JSON.stringify({ cap: CAP, largest, requested, peak, peakListing, settledTotal, settled: settled.map((entry) => `${entry.rung}/${entry.index}=${entry.size}`) }, null, 2),
      contentType: 'application/json',
    });
    expect(requested, 'the test must request more than the cap holds').toBeGreaterThan(CAP + largest);
    expect(peak, `peak total of video *.m4s on disk (${peakListing})`).toBeLessThanOrEqual(CAP + largest);
    expect(settledTotal, 'total after settling').toBeLessThanOrEqual(CAP + largest);

    // Re-request a segment that was evicted.
    const present = new Set(settled.map((entry) => `${entry.rung}/${entry.index}`));
    const evicted = [...served.keys()].find((key) => !present.has(key));
    expect(evicted, `some requested segment was evicted (on disk: ${[...present].join(', ')})`).toBeDefined();
    const original = served.get(evicted!)!;
    const watch = watchProcesses(server.pid, encoderFor(asset.assetId, original.rendition.width), { intervalMs: 20 });
    const again = await httpGet(original.rendition.playlist.segments[original.index]!.url);
    await watch.stop();
    expect(again.status).toBe(200);
    expect(watch.seen.size, `re-encode of the evicted ${evicted} (ffmpeg seen)`).toBeGreaterThanOrEqual(1);
    const decoded = await decodeSegment(original.rendition.init, again.body, 're-encoded');
    const before = await decodeSegment(original.rendition.init, original.body, 'first-encode');
    expect(decoded.stderr.trim(), `decode errors in the re-encoded ${evicted}`).toBe('');
    expect(decoded.ok).toBe(true);
    expect({ frames: decoded.frames, firstPts: decoded.firstPts, lastPts: decoded.lastPts }, 'same frames as the first encode').toEqual({
      frames: before.frames,
      firstPts: before.firstPts,
      lastPts: before.lastPts,
    });
    testInfo.annotations.push({
      type: 're-encode',
      description: `${evicted}: ${again.body.length} bytes, ${sha256(again.body) === sha256(original.body) ? 'byte-identical to' : 'differs from'} the first encode (${original.body.length} bytes)`,
    });
  });
});

test.describe("a viewer's audio under load", () => {
  let server: KeyframeServer;
  test.afterAll(async () => disposeKeyframe(server));

  // The audio track used to drop to nice 19 after its first 20 s, and a nice value cannot be
  // raised again: with the cores busy with video, a viewer's next audio segment then waited
  // behind every video encode, including prefetches nobody was waiting for yet. Now it is
  // deadline work of the scheduler, ahead of all queued speculative work.
  test('an audio segment a viewer asks for is served before the queued prefetches of unwatched video', async ({ playbackFixtures, playbackMedia }, testInfo) => {
  test.skip(isCluster(), 'watches the ffmpeg children of the one server process (/proc); a cluster spreads them over three nodes');
    test.setTimeout(480_000);
    await playbackFixtures.ensure('long1080p');
    // Four encoders on this small machine: the cores are oversubscribed with video at normal
    // priority, as under real load.
    server = await startKeyframe({
      label: 'jit-audio-under-load',
      env: { JIT_ENCODE_CONCURRENCY: '4', PREFETCH_SEGMENTS: '6', FILL_IDLE_ENCODERS: 'false' },
    });
    const api = new Api(server.baseUrl, await server.createToken());
    const asset = await createPlayableAsset(api, playbackMedia.fileUrl(playbackFixtures.file('long1080p')));
    const audioDir = path.join(server.assetDir(asset.assetId), 'hls', 'audio');
    const deadline = Date.now() + 60_000;
    while (!existsSync(path.join(audioDir, 'complete.json')) && Date.now() < deadline) await sleep(100);
    expect(existsSync(path.join(audioDir, 'complete.json')), 'the audio track was encoded after ready').toBe(true);

    // Restart without the audio track (its job is done, so nothing encodes it until asked).
    await server.stop();
    rmSync(audioDir, { recursive: true, force: true });
    server = await restartKeyframe(server);
    const renditions = await Promise.all(['1080p', '720p', '540p', '360p'].map((name) => loadRendition(server, asset, name)));

    // Four viewers fill the encoders with video, and each leaves six prefetches queued behind.
    const viewerHeaders = (name: string) => ({ 'user-agent': `jit-e2e-${name}` });
    const firstSegments = await Promise.all(
      renditions.map((rendition) => httpGet(rendition.playlist.segments[1]!.url, { headers: viewerHeaders(rendition.name) })),
    );
    expect(firstSegments.map((response) => response.status)).toEqual(renditions.map(() => 200));
    const prefetched = renditions.flatMap((rendition) =>
      rendition.playlist.segments.slice(2, 8).map((_, offset) => path.join(server.assetDir(asset.assetId), 'hls', rendition.name, `${offset + 2}.m4s`)),
    );

    // A fifth viewer asks for audio near the end of the track (past the old 20 s full-priority lead).
    const audioUrl = server.url(`/${asset.playbackId}/audio.m3u8`);
    const audioPlaylist = parseMediaPlaylist((await httpGet(audioUrl)).text, audioUrl);
    const audioIndex = audioPlaylist.segments.length - 1;
    const [audioInit, audioSegment] = await Promise.all([
      httpGet(audioPlaylist.map!.url, { headers: viewerHeaders('audio') }),
      httpGet(audioPlaylist.segments[audioIndex]!.url, { headers: viewerHeaders('audio') }),
    ]);
    const prefetchesDoneBeforeAudio = prefetched.filter((file) => existsSync(file));
    expect(audioInit.status).toBe(200);
    expect(audioSegment.status, `GET ${audioPlaylist.segments[audioIndex]!.url}`).toBe(200);

    // The prefetches were really queued: they finish afterwards.
    // 24 segments of 1080p…360p at normal priority: about 25 s on 2 idle cores, several minutes
    // beside the rest of the suite (the S3 and cluster specs run in parallel). A viewer silent for
    // 30 s has left and its prefetches are dropped (viewer-streams.ts), so the four viewers keep
    // asking for their (stored) segment meanwhile, as paused players polling would.
    const settleBy = Date.now() + 360_000;
    let lastPoll = Date.now();
    while (prefetched.some((file) => !existsSync(file)) && Date.now() < settleBy) {
      await sleep(250);
      if (Date.now() - lastPoll < 5_000) continue;
      lastPoll = Date.now();
      await Promise.all(renditions.map((rendition) => httpGet(rendition.playlist.segments[1]!.url, { headers: viewerHeaders(rendition.name) })));
    }
    const prefetchesDone = prefetched.filter((file) => existsSync(file));
    await testInfo.attach('order.json', {
      body: JSON.stringify({ audioIndex, prefetchesDoneBeforeAudio, prefetchesDone }, null, 2),
      contentType: 'application/json',
    });
    expect(prefetchesDone, 'every queued prefetch was encoded in the end').toHaveLength(prefetched.length);
    // Only the prefetches running when the audio was asked for (three: one encoder is kept for
    // viewers) may finish first, and one starting at that very moment; the other twenty wait
    // behind the viewer's audio.
    expect(prefetchesDoneBeforeAudio.length, `prefetches finished before the audio segment: ${prefetchesDoneBeforeAudio.join(', ')}`).toBeLessThanOrEqual(4);

    const file = path.join(workDir, `audio-${Date.now()}.mp4`);
    await writeFile(file, Buffer.concat([audioInit.body, audioSegment.body]));
    const check = await decodeCheck(file);
    expect(check.stderr.trim(), 'the audio segment decodes cleanly').toBe('');
    expect(check.code).toBe(0);
  });
});

test.describe('idle encoders fill in the ladder', () => {
  let server: KeyframeServer;
  let api: Api;
  test.beforeAll(async () => {
    // No prefetch: every encode after the viewed segment is then filling.
    server = await startKeyframe({ label: 'jit-fill', env: { PREFETCH_SEGMENTS: '0' } });
    api = new Api(server.baseUrl, await server.createToken());
  });
  test.afterAll(async () => disposeKeyframe(server));

  test('after one viewed segment, the rest of every rung up to 1080p is encoded, at nice 19', async ({ playbackFixtures, playbackMedia }, testInfo) => {
  test.skip(isCluster(), 'watches the ffmpeg children of the one server process (/proc); a cluster spreads them over three nodes');
    test.setTimeout(300_000);
    await playbackFixtures.ensure('landscape720p');
    const asset = await createPlayableAsset(api, playbackMedia.fileUrl(playbackFixtures.file('landscape720p')));
    const multivariant = await loadMultivariant(multivariantUrl(server, asset.playbackId));
    const rung = await loadRendition(server, asset, '270p');
    const expected = multivariant.video.flatMap((variant) => rung.playlist.segments.map((_, index) => `${variant.name}/${index}`)).sort();

    const priorities: { pid: number; nice: number; command: string }[] = [];
    // Video encodes only (the audio track, '-vn', runs after ready at normal priority).
    const watch = watchProcesses(server.pid, (entry) => isFfmpeg(entry) && entry.command.includes(asset.assetId) && !entry.command.includes('-vn'), {
      intervalMs: 20,
    });
    const sampled = new Set<number>();
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        for (const entry of watch.seen.values()) {
          if (sampled.has(entry.pid)) continue;
          try {
            priorities.push({ pid: entry.pid, nice: niceOf(entry.pid), command: entry.command });
            sampled.add(entry.pid);
          } catch {
            sampled.add(entry.pid); // exited before it could be read
          }
        }
        await sleep(20);
      }
    })();
    const viewed = await httpGet(rung.playlist.segments[0]!.url);
    expect(viewed.status).toBe(200);
    // From here on nothing is asked for: whatever is encoded now is filling.
    const viewerDoneAt = Date.now();
    const listing = () => videoSegmentFiles(server, asset.assetId).map((entry) => `${entry.rung}/${entry.index}`).sort();
    const deadline = Date.now() + 240_000;
    while (listing().length < expected.length && Date.now() < deadline) await sleep(250);
    await sleep(500);
    sampling = false;
    await sampler;
    await watch.stop();
    const fills = priorities.filter((sample) => (watch.seen.get(sample.pid)?.firstSeen ?? 0) > viewerDoneAt);
    await testInfo.attach('fill.json', { body: JSON.stringify({ expected, onDisk: listing(), fills }, null, 2), contentType: 'application/json' });
    expect(listing(), 'every segment of every rung of the watched asset').toEqual(expected);
    expect(fills.length, 'fill encodes seen').toBeGreaterThan(0);
    for (const sample of fills) expect(sample.nice, `nice of the fill encode ${sample.command}`).toBe(19);
    expect(strayVideoFiles(server, asset.assetId)).toEqual([]);
  });

  test('SIGTERM while filling: the server exits cleanly and leaves no partial segment', async ({ playbackFixtures, playbackMedia }) => {
  test.skip(isCluster(), 'watches the ffmpeg children of the one server process (/proc); a cluster spreads them over three nodes');
    test.setTimeout(180_000);
    await playbackFixtures.ensure('long1080p');
    const asset = await createPlayableAsset(api, playbackMedia.fileUrl(playbackFixtures.file('long1080p')));
    const rung = await loadRendition(server, asset, '270p');
    const watch = watchProcesses(server.pid, (entry) => isFfmpeg(entry) && entry.command.includes(asset.assetId) && !entry.command.includes('-vn'), {
      intervalMs: 20,
    });
    expect((await httpGet(rung.playlist.segments[0]!.url)).status).toBe(200);
    const viewerDoneAt = Date.now();
    const deadline = Date.now() + 60_000;
    const filling = () => [...watch.seen.values()].some((entry) => entry.firstSeen > viewerDoneAt);
    while (!filling() && Date.now() < deadline) await sleep(50);
    await watch.stop();
    expect(filling(), 'a fill encode started once the viewer was done').toBe(true);
    const exit = await server.stop();
    expect(exit, 'the server exits on SIGTERM while filling').toMatchObject({ code: 0 });
    expect(strayVideoFiles(server, asset.assetId)).toEqual([]);
  });
});
