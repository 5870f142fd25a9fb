import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { Api } from '../support/api';
import { HLS_JS_PATH } from '../support/hls-page';
import { httpGet, parseMediaPlaylist } from '../support/hls';
import type { KeyframeServer } from '../support/keyframe-server';
import { findBoxes, probeFrames } from '../support/media-probe';
import { createPlayableAsset, expect, loadMultivariant, multivariantUrl, test } from '../support/playback';
import { ENGLISH_CUES, startSubtitleServer, type KnownCue } from '../support/text-tracks';
import { disposeKeyframe, startKeyframe } from '../support/test';

// Subtitles in a real player: hls.js in the system Chromium plays an asset with a WebVTT track and
// must show each cue within 100 ms of its time in the source file, near the start, across and past
// video segment boundaries, in the middle — also in an instant clip, whose timeline starts later.
// The X-TIMESTAMP-MAP the segments carry rests on how the video segments are timestamped, which
// is checked first.

let server: KeyframeServer;
let api: Api;
let subtitles: Awaited<ReturnType<typeof startSubtitleServer>>;
let playbackId: string;
let scratch: string;

const TOLERANCE_S = 0.1;

test.beforeAll(async ({ playbackFixtures }) => {
  test.setTimeout(180_000);
  server = await startKeyframe({ label: 'subtitles' });
  api = new Api(server.baseUrl, await server.createToken());
  await playbackFixtures.ensure('landscape720p');
  subtitles = await startSubtitleServer([playbackFixtures.dir]);
  scratch = await mkdtemp(path.join(os.tmpdir(), 'kf-subtitles-play-'));
  const { asset } = await createPlayableAsset(api, subtitles.media.fileUrl(playbackFixtures.file('landscape720p')), {
    inputs: [
      { url: subtitles.media.fileUrl(playbackFixtures.file('landscape720p')) },
      { url: subtitles.url('englishVtt'), type: 'text', text_type: 'subtitles', language_code: 'en', name: 'English' },
    ],
  });
  playbackId = asset.playback_ids[0].id;
  const trackId = asset.tracks.find((track: { type: string }) => track.type === 'text').id as string;
  const deadline = Date.now() + 60_000;
  while ((await httpGet(server.url(`/${playbackId}/text/${trackId}.vtt`))).status !== 200 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
});

test.afterAll(async () => {
  await subtitles?.close();
  await disposeKeyframe(server);
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

test('video segments sit on the asset timeline: no edit list, first frame at the planned start, no B-frames (what MPEGTS:0 rests on)', async () => {
  const playlist = await loadMultivariant(multivariantUrl(server, playbackId));
  const smallest = [...playlist.video].sort((a, b) => a.bandwidth - b.bandwidth)[0]!;
  const media = parseMediaPlaylist((await httpGet(smallest.url)).text, smallest.url);
  const init = (await httpGet(media.map!.url)).body;
  expect(findBoxes(init, ['moov', 'trak', 'edts'])).toEqual([]);
  // Segment 2 starts at 4 s (2 s, 2 s, then 4 s segments).
  const segment = await httpGet(media.segments[2]!.url);
  expect(segment.status).toBe(200);
  const file = path.join(scratch, 'segment2.mp4');
  await writeFile(file, Buffer.concat([init, segment.body]));
  const { frames } = await probeFrames(file, { select: 'v:0' });
  expect(frames.length).toBeGreaterThan(0);
  expect(frames[0]!.pts).toBeCloseTo(4, 3);
  expect(frames.filter((frame) => frame.pictType === 'B')).toEqual([]);
  const pts = frames.map((frame) => frame.pts);
  expect(pts).toEqual([...pts].sort((a, b) => a - b));
});

type ShownCue = { text: string; startTime: number; endTime: number; currentTime: number; label: string };
type PlayerWindow = Window & {
  Hls: { Events: Record<string, string>; new (config?: object): HlsLike };
  player: { hls: HlsLike; errors: string[]; subtitleFragments: number[] };
};
type HlsLike = {
  on(event: string, handler: (event: string, data: { details?: string; fatal?: boolean; frag?: { type: string; sn: number } }) => void): void;
  loadSource(url: string): void;
  attachMedia(media: HTMLMediaElement): void;
  subtitleTrack: number;
  subtitleTracks: Array<{ name: string; default: boolean }>;
};

const startPlayer = async (page: Page, src: string, config: { startPosition?: number } = {}) => {
  await page.setContent('<!doctype html><html><body></body></html>');
  await page.addScriptTag({ path: HLS_JS_PATH });
  await page.evaluate(
    ({ url, config }) => {
      const win = window as unknown as PlayerWindow;
      const video = document.createElement('video');
      video.muted = true;
      document.body.append(video);
      const hls = new win.Hls(config);
      win.player = { hls, errors: [], subtitleFragments: [] };
      hls.on(win.Hls.Events.ERROR!, (_event, data) => win.player.errors.push(`${data.details}${data.fatal ? ' (fatal)' : ''}`));
      hls.on(win.Hls.Events.FRAG_LOADED!, (_event, data) => {
        if (data.frag?.type === 'subtitle') win.player.subtitleFragments.push(data.frag.sn);
      });
      hls.loadSource(url);
      hls.attachMedia(video);
    },
    { url: src, config },
  );
  await expect.poll(() => page.evaluate(() => (window as unknown as PlayerWindow).player.hls.subtitleTrack), { timeout: 30_000 }).toBeGreaterThanOrEqual(0);
  return page.evaluate(() => {
    const { hls } = (window as unknown as PlayerWindow).player;
    return hls.subtitleTracks[hls.subtitleTrack]!;
  });
};

// Seeks the paused player to `time` and waits until the cue with `text` is active in the shown
// text track, as hls.js made it.
const activeCueAt = (page: Page, time: number, text: string) =>
  page.evaluate(
    async ({ time, text }) => {
      const video = document.querySelector('video')!;
      video.currentTime = time;
      const deadline = performance.now() + 60_000;
      while (performance.now() < deadline) {
        const track = [...video.textTracks].find((candidate) => candidate.mode === 'showing');
        const cues = [...(track?.activeCues ?? [])] as VTTCue[];
        const cue = cues.find((candidate) => candidate.text.replace(/<[^>]*>/g, '') === text);
        if (track && cue && !video.seeking) return { text, startTime: cue.startTime, endTime: cue.endTime, currentTime: video.currentTime, label: track.label };
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const track = [...video.textTracks].find((candidate) => candidate.mode === 'showing');
      const all = [...(track?.cues ?? [])].map((cue) => `${(cue as VTTCue).text}@${cue.startTime}`);
      throw new Error(`no active "${text}" at ${time} s (at ${video.currentTime} s; cues: ${all.join(', ') || 'none'}; errors: ${(window as unknown as PlayerWindow).player.errors.join(', ')})`);
    },
    { time, text },
  ) as Promise<ShownCue>;

const expectShownOnTime = async (page: Page, cue: KnownCue, offset = 0) => {
  const at = cue.start - offset + 0.05;
  const shown = await activeCueAt(page, at, cue.text);
  expect(shown.currentTime).toBeCloseTo(at, 2);
  expect(Math.abs(shown.startTime - (cue.start - offset)), `${cue.text}: shown from ${shown.startTime} s`).toBeLessThanOrEqual(TOLERANCE_S);
  expect(Math.abs(shown.endTime - (cue.end - offset)), `${cue.text}: shown until ${shown.endTime} s`).toBeLessThanOrEqual(TOLERANCE_S);
  return shown;
};

const cueNamed = (text: string) => ENGLISH_CUES.find((cue) => cue.text === text)!;

test('hls.js shows every cue at its source time: at the start, across and past segment boundaries, in the middle', async ({ page }) => {
  const track = await startPlayer(page, multivariantUrl(server, playbackId, 'default_subtitles_lang=en'));
  // DEFAULT=YES from default_subtitles_lang: hls.js turned the track on by itself.
  expect(track).toMatchObject({ name: 'English', default: true });
  // The 10 s source: segments [0, 2), [2, 4), [4, 8), [8, 10).
  for (const text of ['Hello there', 'Across the first boundary', 'Past the first boundary', 'In the middle', 'Past the third boundary']) {
    const shown = await expectShownOnTime(page, cueNamed(text));
    expect(shown.label).toBe('English');
  }
  const errors = await page.evaluate(() => (window as unknown as PlayerWindow).player.errors);
  expect(errors.filter((error) => error.endsWith('(fatal)'))).toEqual([]);
});

test('a cue across a segment boundary, read from the later segment only, keeps its source time', async ({ page }) => {
  const across = cueNamed('Across the first boundary');
  // hls.js fetches every subtitles segment of a short VOD; the browser gets an empty segment [0, 2)
  // instead of ours, so the cue can come from segment [2, 4) alone.
  await page.route(/\/subtitles-[A-Za-z0-9]+\/0\.vtt/, (route) =>
    route.fulfill({ status: 200, headers: { 'content-type': 'text/vtt', 'access-control-allow-origin': '*' }, body: 'WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000\n' }),
  );
  await startPlayer(page, multivariantUrl(server, playbackId, 'default_subtitles_lang=en'));
  const shown = await expectShownOnTime(page, across);
  expect(shown.startTime).toBeGreaterThan(0);
  const loaded = await page.evaluate(() => (window as unknown as PlayerWindow).player.subtitleFragments);
  expect(loaded).toContain(1);
  // Nothing of the first segment reached the player: the other cue in [0, 2) is missing.
  const cues = await page.evaluate(() => {
    const track = [...document.querySelector('video')!.textTracks].find((candidate) => candidate.mode === 'showing');
    return [...(track?.cues ?? [])].map((cue) => (cue as VTTCue).text);
  });
  expect(cues).toContain(across.text);
  expect(cues).not.toContain('Hello <i>there</i>');
});

test('instant clip: hls.js shows the cues on the clipped timeline', async ({ page }) => {
  const clipStart = 4;
  await startPlayer(page, multivariantUrl(server, playbackId, `asset_start_time=${clipStart}&asset_end_time=10&default_subtitles_lang=en`));
  for (const text of ['In the middle', 'Past the third boundary']) await expectShownOnTime(page, cueNamed(text), clipStart);
  const errors = await page.evaluate(() => (window as unknown as PlayerWindow).player.errors);
  expect(errors.filter((error) => error.endsWith('(fatal)'))).toEqual([]);
});

test('audio-only asset: hls.js shows the cues at their source times', async ({ page, playbackFixtures }) => {
  await playbackFixtures.ensure('audioOnly');
  const { asset } = await createPlayableAsset(api, subtitles.media.fileUrl(playbackFixtures.file('audioOnly')), {
    inputs: [
      { url: subtitles.media.fileUrl(playbackFixtures.file('audioOnly')) },
      { url: subtitles.url('englishVtt'), type: 'text', text_type: 'subtitles', language_code: 'en', name: 'English' },
    ],
  });
  const audioPlaybackId = asset.playback_ids[0].id as string;
  const playlistUrl = multivariantUrl(server, audioPlaybackId, 'default_subtitles_lang=en');
  await expect.poll(async () => (await httpGet(playlistUrl)).text, { timeout: 60_000 }).toContain('TYPE=SUBTITLES');
  await startPlayer(page, playlistUrl);
  // Audio segments are about 4 s long: the first, the middle and the last one.
  for (const text of ['Hello there', 'In the middle', 'Past the third boundary']) await expectShownOnTime(page, cueNamed(text));
});
