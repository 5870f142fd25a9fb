import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from '@playwright/test';
import { startPlayerPageServer, type PlayerReport } from '../../harness/player-page';
import { Api, type Json } from '../support/api';
import { makeThreeLanguageSource } from '../support/audio-tracks';
import { chromiumLaunchOptions } from '../../harness/chromium';
import type { KeyframeServer } from '../support/keyframe-server';
import { MediaServer } from '../../harness/media-server';
import { REPO_ROOT } from '../../harness/paths';
import { createPlayableAsset, expect, multivariantUrl, test } from '../support/playback';
import { disposeKeyframe, startKeyframe } from '../support/test';

// A viewer changes language mid-playback: hls.js in the system Chromium plays an asset with three
// audio tracks, and a few seconds in switches to the second one (hls.audioTrack = 1), the track's
// encode starting at that moment. Playback goes on: the new track's segments are fetched, the
// position keeps advancing, and any wait for data ends in playing again.

// Real-time playback must not share two cores with another worker's encodes.
test.use({ cpuLock: 'exclusive' });

const SECONDS = 30;
const SWITCH_AT = 3;
const PLAY_AFTER_SWITCH = 8;

let keyframe: KeyframeServer;
let api: Api;
let workDir: string;
let media: MediaServer;
let pageServer: Awaited<ReturnType<typeof startPlayerPageServer>> | undefined;
let browser: Browser | undefined;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  workDir = await mkdtemp(path.join(os.tmpdir(), 'keyframe-e2e-audio-switch-'));
  await makeThreeLanguageSource(path.join(workDir, 'three-languages-30s.mkv'), SECONDS);
  media = await MediaServer.start({ roots: [workDir] });
  keyframe = await startKeyframe({ label: 'audio-track-switch' });
  api = new Api(keyframe.baseUrl, await keyframe.createToken());
  pageServer = await startPlayerPageServer(REPO_ROOT);
});

test.afterAll(async () => {
  await browser?.close();
  await pageServer?.close();
  await media?.close();
  await disposeKeyframe(keyframe);
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

type HlsWindow = Window & { hls: { audioTrack: number; audioTracks: Array<{ name: string; url: string }> }; report: PlayerReport };

const currentTime = (page: Page) => page.evaluate(() => (document.getElementById('video') as HTMLVideoElement).currentTime);
const readReport = (page: Page) => page.evaluate(() => (window as unknown as HlsWindow).report);

const waitForPosition = async (page: Page, seconds: number, timeoutMs: number): Promise<number> => {
  const deadline = Date.now() + timeoutMs;
  let position = await currentTime(page);
  while (position < seconds && Date.now() < deadline && !(await readReport(page)).fatal) {
    await page.waitForTimeout(200);
    position = await currentTime(page);
  }
  return position;
};

test('hls.js switches to the second audio track mid-playback and keeps playing on it', async ({}, testInfo) => {
  const { playbackId, asset } = await createPlayableAsset(api, media.fileUrl('three-languages-30s.mkv'));
  const second = asset.tracks.filter((track: Json) => track.type === 'audio')[1];
  const src = multivariantUrl(keyframe, playbackId);

  browser = await chromium.launch(chromiumLaunchOptions);
  const page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
  const consoleLines: string[] = [];
  page.on('console', (message) => consoleLines.push(`[${message.type()}] ${message.text()}`));
  await page.goto(`${pageServer!.origin}/`);
  const supported = await page.evaluate((url) => (window as unknown as { startPlayback: (src: string) => boolean }).startPlayback(url), src);
  expect(supported, 'Hls.isSupported() in this Chromium').toBe(true);

  const beforeSwitch = await waitForPosition(page, SWITCH_AT, 60_000);
  expect(beforeSwitch, `playing on the primary track before the switch: ${JSON.stringify((await readReport(page)).fatal)}`).toBeGreaterThanOrEqual(SWITCH_AT);
  const tracks = await page.evaluate(() => (window as unknown as HlsWindow).hls.audioTracks.map((track) => track.name));
  expect(tracks, 'the audio tracks hls.js read from the multivariant playlist').toEqual(['Default', 'Español', 'Français 5.1']);

  const switchedAt = await page.evaluate(() => {
    const win = window as unknown as HlsWindow;
    win.hls.audioTrack = 1;
    return Math.round(performance.now());
  });
  const switchPosition = await currentTime(page);
  const reached = await waitForPosition(page, switchPosition + PLAY_AFTER_SWITCH, 60_000);
  const report = await readReport(page);
  const selected = await page.evaluate(() => (window as unknown as HlsWindow).hls.audioTrack);

  const afterSwitch = report.events.filter((event) => Number(event.t) >= switchedAt);
  const newTrackLoads = report.loads.filter((load) => load.t >= switchedAt && load.url.startsWith(`audio-${second.id}/`));
  const waitingLeftOpen = (() => {
    const lastWaiting = afterSwitch.map((event) => event.type).lastIndexOf('waiting');
    return lastWaiting !== -1 && !afterSwitch.slice(lastWaiting).some((event) => event.type === 'playing');
  })();
  const summary = { src, switchPosition, reached, selected, newTrackLoads, afterSwitch, errors: report.errors, fatal: report.fatal };
  console.log(`[audio-switch] ${JSON.stringify({ switchPosition, reached, selected, newTrackLoads: newTrackLoads.length, afterSwitch: afterSwitch.map((event) => event.type) })}`);
  await testInfo.attach('audio-switch.json', { body: JSON.stringify({ ...summary, loads: report.loads, console: consoleLines }, null, 2), contentType: 'application/json' });

  expect(report.fatal, `fatal hls.js error: ${JSON.stringify(report.fatal)}`).toBeNull();
  expect(selected, 'hls.audioTrack after the switch').toBe(1);
  expect(newTrackLoads.length, `segments of audio-${second.id} fetched after the switch: ${JSON.stringify(report.loads.slice(-10))}`).toBeGreaterThan(0);
  expect(reached, `video.currentTime kept advancing after the switch at ${switchPosition.toFixed(2)} s`).toBeGreaterThanOrEqual(switchPosition + PLAY_AFTER_SWITCH);
  expect(waitingLeftOpen, `a 'waiting' after the switch never ended in 'playing': ${JSON.stringify(afterSwitch)}`).toBe(false);
});
