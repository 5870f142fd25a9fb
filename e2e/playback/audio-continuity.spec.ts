import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Api } from '../support/api';
import { httpGet, parseMediaPlaylist, type MediaPlaylist } from '../support/hls';
import { assetDirsOf, type KeyframeServer } from '../support/keyframe-server';
import { AAC_PRIMING_S, decodeCheck, probeFrames, probePackets, sourceInfo, type SourceInfo } from '../support/media-probe';
import { sharedMediaPath } from '../support/paths';
import {
  createPlayableAsset,
  expect,
  loadMultivariant,
  multivariantUrl,
  test,
  type LoadedMultivariant,
  type PlaybackFixtures,
} from '../support/playback';
import { disposeKeyframe, startKeyframe } from '../support/test';
import type { MediaServer } from '../../harness/media-server';

// Segments are encoded independently, so the seams are where JIT packaging goes wrong: audio gaps
// or overlaps between segments (clicks), audio starting late or early against video, and video
// segments that only splice when encoded in order. This spec measures each seam with ffprobe.

const SHARED_SOURCE = 'london_h264_aac_360p_17s.mp4';

let server: KeyframeServer;
let api: Api;
let workDir: string;

test.beforeAll(async () => {
  // No prefetch: every segment requested below is encoded for that request, in the order asked.
  server = await startKeyframe({ label: 'playback-continuity', env: { PREFETCH_SEGMENTS: '0' } });
  api = new Api(server.baseUrl, await server.createToken());
  workDir = mkdtempSync(path.join(os.tmpdir(), 'keyframe-e2e-continuity-'));
});

test.afterAll(async () => {
  await disposeKeyframe(server);
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

type Prepared = {
  source: SourceInfo;
  sourceName: string;
  playbackId: string;
  assetId: string;
  multivariant: LoadedMultivariant;
  /** Video segment files on disk when the asset turned ready (before any playback request). */
  encodedAtReady: string[];
};

/** `<rung>/<n>.m4s` of every video rung on disk (on every node of the server). */
const videoSegmentsOnDisk = (assetId: string): string[] =>
  assetDirsOf(server, assetId).flatMap((assetDir) => videoSegmentsIn(path.join(assetDir, 'hls')));

const videoSegmentsIn = (hls: string): string[] => {
  if (!existsSync(hls)) return [];
  return readdirSync(hls)
    .filter((rung) => rung !== 'audio')
    .flatMap((rung) => {
      try {
        return readdirSync(path.join(hls, rung))
          .filter((name) => name.endsWith('.m4s'))
          .map((name) => `${rung}/${name}`);
      } catch {
        return [];
      }
    });
};
let prepared: Promise<Prepared> | undefined;

/** One asset for the whole file: the shared London clip when present, else a 16 s lavfi clip. */
const prepare = (playbackFixtures: PlaybackFixtures, playbackMedia: MediaServer): Promise<Prepared> => {
  prepared ??= (async () => {
    const shared = sharedMediaPath(SHARED_SOURCE);
    const sourcePath = shared ?? (await playbackFixtures.ensure('continuity720p'));
    const sourceName = path.basename(sourcePath);
    const source = await sourceInfo(sourcePath);
    const { playbackId, assetId } = await createPlayableAsset(api, playbackMedia.fileUrl(sourceName));
    const encodedAtReady = videoSegmentsOnDisk(assetId);
    const multivariant = await loadMultivariant(multivariantUrl(server, playbackId));
    return { source, sourceName, playbackId, assetId, multivariant, encodedAtReady };
  })();
  prepared.catch(() => (prepared = undefined));
  return prepared;
};

const loadPlaylist = async (url: string): Promise<MediaPlaylist> => {
  const response = await httpGet(url);
  expect(response.status, `GET ${url}`).toBe(200);
  return parseMediaPlaylist(response.text, url);
};

const download = async (url: string): Promise<Buffer> => {
  const response = await httpGet(url);
  expect(response.status, `GET ${url}: ${response.text.slice(0, 200)}`).toBe(200);
  return response.body;
};

const shuffle = <T>(items: T[]): T[] => {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index -= 1) {
    const other = Math.floor(Math.random() * (index + 1));
    [copy[index], copy[other]] = [copy[other]!, copy[index]!];
  }
  return copy;
};

const topRung = (multivariant: LoadedMultivariant) =>
  [...multivariant.video].sort((a, b) => (b.resolution?.height ?? 0) - (a.resolution?.height ?? 0))[0]!;

test('video segments fetched cold in a random order splice into one clean, gapless stream', async ({ playbackFixtures, playbackMedia }, testInfo) => {
  const { source, multivariant, assetId, sourceName, encodedAtReady } = await prepare(playbackFixtures, playbackMedia);
  // A fresh node measures what an encode costs on the first asset made ready: segment 0 of the rung
  // players start on (the first listed), kept for them (measure-encode-cost.ts). Nothing else.
  const measured = `${multivariant.video[0]?.name}/0.m4s`;
  expect(
    encodedAtReady.filter((name) => name !== measured),
    'no video segment but the cost measurement is encoded when the asset turns ready',
  ).toEqual([]);
  const rung = topRung(multivariant);
  // The multivariant request may legitimately warm up a first segment; everything else is cold.
  const warm = videoSegmentsOnDisk(assetId).filter((name) => name.startsWith(`${rung.name}/`));
  if (warm.length > 0) testInfo.annotations.push({ type: 'warm before the random fetch', description: warm.join(', ') });

  const playlist = await loadPlaylist(rung.url);
  expect(playlist.map).toBeDefined();
  const order = shuffle(playlist.segments.map((_, index) => index));
  const bodies = new Map<number, Buffer>();
  for (const index of order) bodies.set(index, await download(playlist.segments[index]!.url));
  const init = await download(playlist.map!.url);

  const joined = path.join(workDir, `${rung.name}-joined.mp4`);
  await writeFile(joined, Buffer.concat([init, ...playlist.segments.map((_, index) => bodies.get(index)!)]));
  const decoded = await decodeCheck(joined);
  expect.soft(decoded.code, `decode of init + ${playlist.segments.length} segments of ${rung.url}: ${decoded.stderr}`).toBe(0);
  expect.soft(decoded.stderr.trim(), `ffmpeg errors decoding the joined ${rung.name} segments (fetched in order ${order})`).toBe('');

  const { frames } = await probeFrames(joined, { select: 'v:0' });
  const frameDuration = 1 / (rung.frameRate ?? 1 / source.video!.minFrameDuration);
  const problems: string[] = [];
  for (let index = 1; index < frames.length; index += 1) {
    const gap = frames[index]!.pts - frames[index - 1]!.pts;
    if (!(gap > 0)) problems.push(`frame ${index}: pts ${frames[index]!.pts} not after ${frames[index - 1]!.pts}`);
    else if (gap > 1.5 * frameDuration) problems.push(`frame ${index}: gap of ${(gap * 1000).toFixed(1)} ms after pts ${frames[index - 1]!.pts}`);
  }
  await testInfo.attach('random-order.json', {
    body: JSON.stringify({ source: sourceName, rung: rung.name, order, warm, frames: frames.length, problems }, null, 2),
    contentType: 'application/json',
  });
  expect.soft(problems, `frame timestamps of the joined ${rung.name} segments (fetched in order ${order})`).toEqual([]);
  expect.soft(frames[0]?.pts ?? Number.NaN, 'first frame at 0').toBeCloseTo(0, 3);
  const span = (frames.at(-1)?.pts ?? 0) + frameDuration - (frames[0]?.pts ?? 0);
  expect.soft(Math.abs(span - source.video!.duration), `joined span ${span} vs source ${source.video!.duration}`).toBeLessThanOrEqual(frameDuration + 0.001);
});

test('audio segments join with no gap and no overlap (±1 ms at every boundary)', async ({ playbackFixtures, playbackMedia }, testInfo) => {
  const { multivariant } = await prepare(playbackFixtures, playbackMedia);
  const audioUrl = multivariant.media.find((media) => media.attributes.TYPE === 'AUDIO')?.url;
  expect(audioUrl, multivariant.text).toBeTruthy();
  const playlist = await loadPlaylist(audioUrl!);
  expect(playlist.segments.length, 'several audio segments').toBeGreaterThan(2);
  const init = await download(playlist.map!.url);

  const aacFrame = 1024 / 48_000;
  const segments: Array<{ index: number; first: number; end: number; packets: number; lastDuration: number; irregularSteps: string[] }> = [];
  for (const [index, segment] of playlist.segments.entries()) {
    const file = path.join(workDir, `audio-${index}.mp4`);
    await writeFile(file, Buffer.concat([init, await download(segment.url)]));
    const packets = (await probePackets(file, { select: 'a:0' })).filter((packet) => Number.isFinite(packet.pts));
    expect(packets.length, `packets in init + audio segment ${index}`).toBeGreaterThan(0);
    const fallback = 1024 / 48_000; // one AAC frame, when ffprobe reports no duration
    const last = packets.at(-1)!;
    const lastDuration = Number.isFinite(last.duration) ? last.duration : fallback;
    // Diagnostics only: packets inside a segment should also follow each other by one AAC frame.
    const irregularSteps = packets
      .slice(1)
      .map((packet, offset) => ({ at: packets[offset]!.pts, stepMs: (packet.pts - packets[offset]!.pts) * 1000 }))
      .filter((step) => Math.abs(step.stepMs - aacFrame * 1000) > 0.1)
      .map((step) => `${step.stepMs.toFixed(3)} ms after ${step.at}`);
    segments.push({ index, first: packets[0]!.pts, end: last.pts + lastDuration, packets: packets.length, lastDuration, irregularSteps });
  }
  const irregular = segments.reduce((sum, segment) => sum + segment.irregularSteps.length, 0);
  if (irregular > 0) {
    testInfo.annotations.push({
      type: 'audio timestamps',
      description: `${irregular} packet step(s) inside segments differ from one AAC frame (${(aacFrame * 1000).toFixed(3)} ms), e.g. ${segments.flatMap((segment) => segment.irregularSteps).slice(0, 3).join('; ')}`,
    });
  }
  const boundaries = segments.slice(1).map((segment, offset) => ({
    boundary: `${offset} → ${segment.index}`,
    previousEnd: segments[offset]!.end,
    nextStart: segment.first,
    differenceMs: (segment.first - segments[offset]!.end) * 1000,
  }));
  await testInfo.attach('audio-boundaries.json', { body: JSON.stringify({ segments, boundaries }, null, 2), contentType: 'application/json' });
  for (const boundary of boundaries) {
    expect
      .soft(Math.abs(boundary.differenceMs), `audio boundary ${boundary.boundary}: next starts at ${boundary.nextStart}, previous ends at ${boundary.previousEnd} (${audioUrl})`)
      .toBeLessThanOrEqual(1);
  }
});

test('audio and video start together (≤ 20 ms between the first video frame and the first audio sample)', async ({ playbackFixtures, playbackMedia }, testInfo) => {
  const { multivariant } = await prepare(playbackFixtures, playbackMedia);
  const audioUrl = multivariant.media.find((media) => media.attributes.TYPE === 'AUDIO')?.url;
  expect(audioUrl, multivariant.text).toBeTruthy();

  const firstPresented = async (playlistUrl: string, select: 'v:0' | 'a:0') => {
    const playlist = await loadPlaylist(playlistUrl);
    const file = path.join(workDir, `start-${select.replace(':', '')}-${path.basename(playlistUrl)}.mp4`);
    await writeFile(file, Buffer.concat([await download(playlist.map!.url), await download(playlist.segments[0]!.url)]));
    const { frames } = await probeFrames(file, { select });
    expect(frames.length, `frames in init + segment 0 of ${playlistUrl}`).toBeGreaterThan(0);
    return Math.min(...frames.map((frame) => frame.pts));
  };

  const audioFirst = await firstPresented(audioUrl!, 'a:0');
  // Up to one AAC frame (1024 samples) before 0 is encoder priming that the edit list removes from
  // presentation; anything earlier really is audio ahead of the video.
  const audioStart = audioFirst >= -AAC_PRIMING_S ? Math.max(0, audioFirst) : audioFirst;
  const starts: Record<string, number> = { audioFirstFrame: audioFirst, audioStart };
  for (const variant of multivariant.video) {
    const videoStart = await firstPresented(variant.url, 'v:0');
    starts[variant.name] = videoStart;
    expect.soft(Math.abs(videoStart - audioStart) * 1000, `A/V start offset of ${variant.name}: video ${videoStart} s, audio ${audioStart} s`).toBeLessThanOrEqual(20);
  }
  await testInfo.attach('av-start.json', { body: JSON.stringify(starts, null, 2), contentType: 'application/json' });
});
