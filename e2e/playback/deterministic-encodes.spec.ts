import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Api } from '../support/api';
import { httpGet, parseMediaPlaylist, type MediaPlaylist } from '../support/hls';
import { isCluster, type KeyframeServer } from '../support/keyframe-server';
import { createPlayableAsset, expect, loadMultivariant, multivariantUrl, test } from '../support/playback';
import { disposeKeyframe, restartKeyframe, startKeyframe } from '../support/test';

// Segments and init segments are served `immutable`: a CDN or a browser that kept the first copy
// of one file will mix it with files from a later encode. So re-encoding any (rung, segment) must
// give the same bytes, whatever made it happen: eviction, a restart, another machine. This spec
// encodes every file of every rung (and the audio track), throws them all away, and encodes them
// again on a restarted server with a different CPU set (as after moving to another machine), in
// another order (a rung started cold from the middle), then once more after LRU eviction.

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

type Rendition = { name: string; playlist: MediaPlaylist };

const loadRenditions = async (server: KeyframeServer, playbackId: string): Promise<Rendition[]> => {
  const multivariant = await loadMultivariant(multivariantUrl(server, playbackId));
  const urls = [
    ...multivariant.video.map((variant) => ({ name: variant.name, url: variant.url })),
    ...multivariant.media
      .filter((media) => media.attributes.TYPE === 'AUDIO' && media.url)
      .map((media) => ({ name: 'audio', url: media.url! })),
  ];
  return Promise.all(
    urls.map(async ({ name, url }) => {
      const response = await httpGet(url);
      expect(response.status, `GET ${url}`).toBe(200);
      return { name, playlist: parseMediaPlaylist(response.text, url) };
    }),
  );
};

// A 429 is the server steering a player that walks a rung faster than real time on a busy (or
// pinned, one-CPU) machine to a cheaper one; this spec wants that rung's bytes, so it comes back
// for them once the encoder has room, as the refusal's "retry this rendition later" says.
const STEERED_RETRY_MS = 2_000;
const STEERED_RETRIES = 30;

const getUnlessSteered = async (url: string) => {
  for (let attempt = 0; ; attempt++) {
    const response = await httpGet(url);
    if (response.status !== 429 || attempt >= STEERED_RETRIES) return response;
    await new Promise((resolve) => setTimeout(resolve, STEERED_RETRY_MS));
  }
};

/** GETs the files in the given order, returning `<rendition>/<file>` → SHA-256. */
const fetchHashes = async (files: { key: string; url: string }[], before?: (key: string) => void): Promise<Map<string, string>> => {
  const hashes = new Map<string, string>();
  for (const { key, url } of files) {
    before?.(key);
    const response = await getUnlessSteered(url);
    expect(response.status, `GET ${url}: ${response.text.slice(0, 200)}`).toBe(200);
    expect(response.body.length, `${key} is not empty`).toBeGreaterThan(0);
    hashes.set(key, sha256(response.body));
  }
  return hashes;
};

const initOf = (rendition: Rendition) => ({ key: `${rendition.name}/init.mp4`, url: rendition.playlist.map!.url });
const segmentOf = (rendition: Rendition, index: number) => ({
  key: `${rendition.name}/${index}.m4s`,
  url: rendition.playlist.segments[index]!.url,
});

/** Every key whose hash differs from the first run's, with both hashes. */
const mismatches = (expected: Map<string, string>, actual: Map<string, string>): string[] =>
  [...expected].filter(([key, hash]) => actual.get(key) !== hash).map(([key, hash]) => `${key}: ${hash.slice(0, 12)} → ${actual.get(key)?.slice(0, 12)}`);

/** Restricts every thread of `pid` (and what it spawns from now on) to the given CPUs. */
const setAffinity = (pid: number, cpus: string) => execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
const cpuCount = os.availableParallelism();
const canPin = cpuCount > 1 && spawnSync('taskset', ['-c', '0', 'true']).status === 0;

test.describe('deterministic encodes', () => {
  let server: KeyframeServer | undefined;
  test.afterAll(async () => disposeKeyframe(server));

  test('every init and media segment of every rung, and the audio track, are byte-identical when encoded again', async ({ playbackFixtures, playbackMedia }, testInfo) => {
  test.skip(isCluster(), 'pins the one server process to a CPU and re-encodes from its DATA_DIR');
    test.setTimeout(240_000);
    if (!canPin) testInfo.annotations.push({ type: 'cpu set', description: 'not changed on restart (one CPU, or no taskset)' });
    const phases: Record<string, number> = {};
    let phaseStart = Date.now();
    const phase = (name: string) => {
      phases[name] = Date.now() - phaseStart;
      phaseStart = Date.now();
    };
    server = await startKeyframe({ label: 'deterministic' });
    const api = new Api(server.baseUrl, await server.createToken());
    await playbackFixtures.ensure('landscape720p');
    const { assetId, playbackId } = await createPlayableAsset(api, playbackMedia.fileUrl(playbackFixtures.file('landscape720p')));

    // 1. First encode: each rung's init before its segments (a one-frame init encode, or the init
    //    of the segment 0 the multivariant request started), segments in order with prefetch.
    const renditions = await loadRenditions(server, playbackId);
    const video = renditions.filter((rendition) => rendition.name !== 'audio');
    expect(video.map((rendition) => rendition.name).sort(), 'several rungs').toEqual(['270p', '360p', '540p', '720p']);
    const segmentCount = video[0]!.playlist.segments.length;
    expect(segmentCount, 'segments in the plan').toBeGreaterThanOrEqual(4);
    const inOrder = renditions.flatMap((rendition) => [
      initOf(rendition),
      ...rendition.playlist.segments.map((_, index) => segmentOf(rendition, index)),
    ]);
    phase('ready');
    const first = await fetchHashes(inOrder);
    phase('first encode');

    // 2. Stop, delete every encoded file (video, init segments, the audio track), restart on
    //    another CPU set: the server now runs on one CPU, as on a machine of another size. Each
    //    rung starts cold from the middle (segment 2 without 1 before it, then its init), and
    //    nothing is prefetched or kept: the cache holds one segment, so the next step re-encodes.
    await server.stop();
    const hls = path.join(server.assetDir(assetId), 'hls');
    rmSync(hls, { recursive: true, force: true });
    server = await restartKeyframe(server, { env: { PREFETCH_SEGMENTS: '0', RENDITION_CACHE_MAX_BYTES: '1' } });
    if (canPin) setAffinity(server.pid, '0');
    const restarted = await loadRenditions(server, playbackId); // the new process listens on another port
    expect(restarted.map((rendition) => `${rendition.name}: ${rendition.playlist.segments.length}`)).toEqual(
      renditions.map((rendition) => `${rendition.name}: ${rendition.playlist.segments.length}`),
    );
    const coldFromTheMiddle = restarted.flatMap((rendition) => {
      const middle = Math.min(2, rendition.playlist.segments.length - 1);
      const rest = rendition.playlist.segments.map((_, index) => index).filter((index) => index !== middle);
      return [segmentOf(rendition, middle), initOf(rendition), ...rest.map((index) => segmentOf(rendition, index))];
    });
    phase('restart');
    const second = await fetchHashes(coldFromTheMiddle);
    phase('after restart, one CPU');

    // 3. Back on every CPU: the segments of a veryfast and a superfast rung again, last to first.
    //    With a one-byte cache each one was evicted by the next, so each is re-encoded (and checked
    //    to be absent before). (Two rungs keep the spec short; step 2 re-encoded all of them.)
    if (canPin) setAffinity(server.pid, `0-${cpuCount - 1}`);
    const reencoded: string[] = [];
    const reverse = restarted
      .filter((rendition) => rendition.name === '360p' || rendition.name === '720p')
      .flatMap((rendition) => rendition.playlist.segments.map((_, index) => segmentOf(rendition, index)).reverse());
    const third = await fetchHashes(reverse, (key) => {
      if (!existsSync(path.join(hls, key))) reencoded.push(key);
    });

    phase('after eviction');
    testInfo.annotations.push({ type: 'phases (ms)', description: JSON.stringify(phases) });
    const onDisk = readdirSync(hls).sort();
    await testInfo.attach('hashes.json', {
      body: JSON.stringify({ cpuCount, onDisk, reencoded, first: Object.fromEntries(first), second: Object.fromEntries(second), third: Object.fromEntries(third) }, null, 2),
      contentType: 'application/json',
    });
    expect(first.size, 'files fetched').toBe(inOrder.length);
    expect.soft(mismatches(first, second), 'files that differ after a restart on another CPU set, fetched cold from the middle').toEqual([]);
    expect(reencoded.length, `video segments evicted before their third request (${reencoded.join(', ')})`).toBeGreaterThanOrEqual(reverse.length - 1);
    expect.soft(mismatches(new Map([...first].filter(([key]) => third.has(key))), third), 'files that differ after LRU eviction').toEqual([]);
  });
});
