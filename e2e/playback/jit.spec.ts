import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { autogroupNiceOf, niceOf } from '../../lib/media/test-support/scheduling';
import { DEMAND_HOLD_MS } from '../../lib/services/playback/encode-demand';
import { Api } from '../support/api';
import { httpGet, parseMediaPlaylist } from '../support/hls';
import { isCluster, type KeyframeServer } from '../support/keyframe-server';
import { createPlayableAsset, expect, loadMultivariant, multivariantUrl, test, type PlayableAsset } from '../support/playback';
import { isFfmpeg, scalesToWidth, waitForIdleEncoders, watchProcesses, type ProcessEntry } from '../../harness/processes';
import { disposeKeyframe, startKeyframe } from '../support/test';
import { sleep, sha256, videoSegmentFiles, strayVideoFiles, waitUntilStable, decodeSegment, type Rendition, loadRendition, segmentStart, encoderFor, seekOf } from '../support/jit';

// Just-in-time encoding, observed from the outside: what is on disk (DATA_DIR/assets/<id>/hls),
// which ffmpeg processes the server spawns (/proc, descendants of the server only), and what the
// HTTP answers are when encodes are requested concurrently, killed, or evicted from the cache.

let workDir: string;
test.beforeAll(() => {
  workDir = mkdtempSync(path.join(os.tmpdir(), 'keyframe-e2e-jit-'));
});
test.afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

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
  // Hooks do not run for a describe skipped here: no cluster is started for nothing.
  test.skip(isCluster(), 'watches and kills the ffmpeg children of the one server process (/proc); e2e/api/cluster.spec.ts counts encodes across nodes from /metrics');
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

    const decoded = await decodeSegment(workDir, top.init, responses[0]!.body, 'burst');
    expect(decoded.stderr.trim(), 'decode errors').toBe('');
    expect(decoded.ok).toBe(true);
    expect(decoded.frames).toBe(Math.round(top.playlist.segments[index]!.duration * top.fps));
  });

  test("a starting viewer's init segment comes from its segment 0's encode as soon as ffmpeg has written it, while that segment still encodes", async ({}, testInfo) => {
    // A player leaves the init out of its bandwidth estimate: an init answered only with segment 0
    // made that segment look instant, and players climbed on the strength of it.
    const multivariant = await loadMultivariant(multivariantUrl(server, asset.playbackId));
    const variant = multivariant.video.find((candidate) => candidate.name === '360p');
    expect(variant, multivariant.text).toBeDefined();
    const playlist = parseMediaPlaylist((await httpGet(variant!.url)).text, variant!.url);
    await waitForIdleEncoders(server.pid);
    const watch = watchProcesses(server.pid, encoderFor(asset.assetId, variant!.resolution!.width), { intervalMs: 10 });
    try {
      const segmentZero = httpGet(playlist.segments[0]!.url);
      const deadline = Date.now() + 30_000;
      while (watch.seen.size === 0 && Date.now() < deadline) await sleep(10);
      expect(watch.seen.size, 'the encode of segment 0 started').toBe(1);
      const init = await httpGet(playlist.map!.url);
      const initAt = Date.now();
      const zero = await segmentZero;
      await watch.stop();
      const encodes = [...watch.seen.values()].filter((entry) => entry.firstSeen <= initAt);
      await testInfo.attach('encodes.json', {
        body: JSON.stringify({ initAt, encodes: encodes.map(({ pid, command, firstSeen, lastSeen }) => ({ pid, command, firstSeen, lastSeen })) }, null, 2),
        contentType: 'application/json',
      });
      expect([init.status, zero.status]).toEqual([200, 200]);
      expect(encodes, 'ffmpeg runs of the rung up to the init answer: segment 0 alone, no one-frame init encode').toHaveLength(1);
      expect(initAt, 'the init was answered while segment 0 was still being encoded').toBeLessThan(encodes[0]!.lastSeen);
      const decoded = await decodeSegment(workDir, init.body, zero.body, 'early-init');
      expect(decoded.stderr.trim(), 'segment 0 decodes with that init').toBe('');
      expect(decoded.frames).toBe(Math.round(playlist.segments[0]!.duration * (variant!.frameRate ?? 30)));
    } finally {
      await watch.stop();
    }
  });

  test('(c) kill -9 of the ffmpeg encoding a cold segment: 5xx or a complete retry, no partial file, next request works', async ({}, testInfo) => {
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
      const decoded = await decodeSegment(workDir, top.init, first.body, 'retried');
      expect(decoded.stderr.trim(), 'a 200 after the kill must be a complete segment').toBe('');
      expect(decoded.frames, 'frames in the 200 answered after the kill').toBe(expectedFrames);
    } else {
      expect(first.status === -1 || first.status >= 500, `status after the kill: ${first.status} ${first.error ?? ''}`).toBe(true);
    }

    // No partial output left behind: the segment is absent or complete, and no temp files remain.
    expect(strayVideoFiles(server, asset.assetId), 'temp/partial files in the video rung folders').toEqual([]);
    if (existsSync(file)) {
      const decoded = await decodeSegment(workDir, top.init, readFileSync(file), 'on-disk');
      expect(decoded.stderr.trim(), `${file} left after the kill decodes cleanly`).toBe('');
      expect(decoded.frames, `${file} left after the kill is complete`).toBe(expectedFrames);
    }

    const later = await httpGet(segment.url);
    expect(later.status, `GET ${segment.url} after the kill`).toBe(200);
    const decoded = await decodeSegment(workDir, top.init, later.body, 'after-kill');
    expect(decoded.stderr.trim()).toBe('');
    expect(decoded.ok).toBe(true);
    expect(decoded.frames).toBe(expectedFrames);
    expect(decoded.firstPts, 'segment starts at its place on the timeline').toBeCloseTo(start, 2);
  });

  test('a viewer switching rungs stops the unwatched prefetch of the rung it left', async () => {
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
      const decoded = await decodeSegment(workDir, to.init, switched.body, 'switched');
      expect(decoded.stderr.trim()).toBe('');
      await sleep(1_500);
      expect(existsSync(left), `${left}: the prefetch nobody waited for was stopped, not finished`).toBe(false);
      expect(strayVideoFiles(server, asset.assetId), 'temp/partial files in the video rung folders').toEqual([]);
    } finally {
      await watch.stop();
    }
  });

  test('a prefetch asked for by several requests of one viewer is not started again once the switch dropped it', async () => {
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
  test.skip(isCluster(), 'watches the ffmpeg children of the one server process (/proc); a cluster spreads them over three nodes');
  let server: KeyframeServer;
  test.beforeAll(async () => {
    server = await startKeyframe({ label: 'jit-background-priority' });
  });
  test.afterAll(async () => disposeKeyframe(server));

  // A 2160p segment takes longer than its duration on 2 cores; at equal priority it would halve
  // the CPU of the segment a viewer is waiting for. Each ffmpeg runs in a session of its own, so
  // with scheduler autogroups the session's nice value is the one that counts.
  test('the ffmpeg encoding a 2160p background segment runs at nice 19, its session too', async ({ playbackFixtures, playbackMedia }) => {
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
