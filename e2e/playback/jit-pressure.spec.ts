import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { niceOf } from '../../lib/media/test-support/scheduling';
import { Api } from '../support/api';
import { httpGet, parseMediaPlaylist } from '../support/hls';
import { isCluster, type KeyframeServer } from '../support/keyframe-server';
import { decodeCheck } from '../support/media-probe';
import { createPlayableAsset, expect, loadMultivariant, multivariantUrl, test } from '../support/playback';
import { isFfmpeg, watchProcesses } from '../../harness/processes';
import { disposeKeyframe, restartKeyframe, startKeyframe } from '../support/test';
import { sleep, sha256, videoSegmentFiles, strayVideoFiles, decodeSegment, type Rendition, loadRendition, encoderFor } from '../support/jit';

// Just-in-time encoding under pressure, observed from the outside (see jit.spec.ts for the basics): what is on disk (DATA_DIR/assets/<id>/hls),
// which ffmpeg processes the server spawns (/proc, descendants of the server only), and what the
// HTTP answers are when encodes are requested concurrently, killed, or evicted from the cache.

let workDir: string;
test.beforeAll(() => {
  workDir = mkdtempSync(path.join(os.tmpdir(), 'keyframe-e2e-jit-'));
});
test.afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
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
    const decoded = await decodeSegment(workDir, original.rendition.init, again.body, 're-encoded');
    const before = await decodeSegment(workDir, original.rendition.init, original.body, 'first-encode');
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
