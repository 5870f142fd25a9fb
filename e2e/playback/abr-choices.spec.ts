import { chromium, type Browser } from '@playwright/test';
import { chromiumLaunchOptions } from '../../harness/chromium';
import { REPO_ROOT } from '../../harness/paths';
import { startPlayerPageServer, type PlayerReport } from '../../harness/player-page';
import { Api } from '../support/api';
import { httpGet, parseMediaPlaylist } from '../support/hls';
import type { KeyframeServer } from '../support/keyframe-server';
import {
  createPlayableAsset,
  expect,
  loadMultivariant,
  multivariantUrl,
  pollMultivariant,
  test,
  type LoadedMultivariant,
  type PlaybackFixtureName,
} from '../support/playback';
import { disposeKeyframe, startKeyframe } from '../support/test';

// What hls.js does with the bandwidths Keyframe declares, in Chromium on a throttled link. Its ABR
// (abr-controller findBestLevel) weighs a rung by BANDWIDTH (the peak) while its buffer is short
// and by AVERAGE-BANDWIDTH once it holds two segments. Capped-CRF rungs spend what their content
// needs, so both figures must be true for hls.js to choose well: an easy asset's rungs cost a
// fraction of their nominal rates and should play at the top on a modest link; a hard asset's
// rungs reach their caps and must not lure hls.js above what the link carries.

// Encoding the two assets' whole ladders is ordinary work (the shared CPU lock, beside other
// workers' tests); only the playbacks, which measure timing, take the machine to themselves.
test.describe.configure({ mode: 'serial' });

const PLAY_SECONDS = 18;
const LINK_LATENCY_MS = 40;

let keyframe: KeyframeServer;
let api: Api;
let pageServer: Awaited<ReturnType<typeof startPlayerPageServer>> | undefined;
let browser: Browser | undefined;

test.beforeAll(async () => {
  keyframe = await startKeyframe({ label: 'playback-abr-choices' });
  api = new Api(keyframe.baseUrl, await keyframe.createToken());
  pageServer = await startPlayerPageServer(REPO_ROOT);
  browser = await chromium.launch(chromiumLaunchOptions);
});

test.afterAll(async () => {
  await browser?.close();
  await pageServer?.close();
  await disposeKeyframe(keyframe);
});

/** Creates the asset, encodes every segment of every rung, and waits for the averages they give. */
const settledAsset = async (
  fixtures: { ensure: (name: PlaybackFixtureName) => Promise<string>; file: (name: PlaybackFixtureName) => string },
  fileUrl: (file: string) => string,
  fixture: PlaybackFixtureName,
): Promise<{ src: string; multivariant: LoadedMultivariant }> => {
  await fixtures.ensure(fixture);
  const { playbackId } = await createPlayableAsset(api, fileUrl(fixtures.file(fixture)));
  const src = multivariantUrl(keyframe, playbackId);
  for (const variant of (await loadMultivariant(src)).video) {
    const playlist = parseMediaPlaylist((await httpGet(variant.url)).text, variant.url);
    for (const url of [playlist.map!.url, ...playlist.segments.map((segment) => segment.url)]) {
      expect((await httpGet(url)).status, url).toBe(200);
    }
  }
  const multivariant = await pollMultivariant(src, (playlist) => playlist.video.every((variant) => variant.averageBandwidth !== undefined), {
    timeoutMs: 30_000,
  });
  expect(multivariant.video.map((variant) => variant.averageBandwidth), 'every rung declares what it was encoded at').not.toContain(undefined);
  return { src, multivariant };
};

type SettledAsset = Awaited<ReturnType<typeof settledAsset>>;
const settled: Partial<Record<'slides' | 'grain', SettledAsset>> = {};

test('both assets encoded in every rung, each rung declaring the average it was encoded at', async ({ playbackFixtures, playbackMedia }) => {
  test.setTimeout(300_000);
  settled.slides = await settledAsset(playbackFixtures, (file) => playbackMedia.fileUrl(file), 'slides1080p20s');
  settled.grain = await settledAsset(playbackFixtures, (file) => playbackMedia.fileUrl(file), 'grain720p20s');
});

type Playback = { report: PlayerReport; position: number; heightsPlayed: number[]; stalls: number };

/** Plays `src` in hls.js on a link of `kbps`, `rewrite` applied to the multivariant playlist. */
const playOnLink = async (src: string, kbps: number, rewrite?: (multivariant: string) => string): Promise<Playback> => {
  const page = await browser!.newPage();
  try {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: LINK_LATENCY_MS,
      downloadThroughput: (kbps * 1000) / 8,
      uploadThroughput: (kbps * 1000) / 8,
    });
    if (rewrite) {
      await page.route(src, async (route) => {
        const response = await route.fetch();
        await route.fulfill({ response, body: rewrite(await response.text()) });
      });
    }
    await page.goto(`${pageServer!.origin}/`);
    const supported = await page.evaluate((url) => (window as unknown as { startPlayback: (src: string) => boolean }).startPlayback(url), src);
    expect(supported, 'Hls.isSupported() in this Chromium').toBe(true);
    const read = () =>
      page.evaluate(() => ({
        report: (window as unknown as { report: PlayerReport }).report,
        position: (document.getElementById('video') as HTMLVideoElement).currentTime,
      }));
    const deadline = Date.now() + 90_000;
    let state = await read();
    while (state.position < PLAY_SECONDS && !state.report.fatal && Date.now() < deadline) {
      await page.waitForTimeout(250);
      state = await read();
    }
    const { report, position } = state;
    const heightsPlayed = report.loads
      .filter((load) => load.type === 'main' && load.url.endsWith('.m4s'))
      .map((load) => report.levels[load.level]?.height ?? 0);
    return { report, position, heightsPlayed, stalls: report.waitingAfterPlaying + report.bufferStalled };
  } finally {
    await page.close();
  }
};

const summary = (multivariant: LoadedMultivariant, playback: Playback) =>
  JSON.stringify({
    rungs: multivariant.video.map((variant) => ({ name: variant.name, bandwidth: variant.bandwidth, average: variant.averageBandwidth })),
    played: playback.heightsPlayed,
    position: playback.position,
    stalls: playback.stalls,
    fatal: playback.report.fatal,
    loads: playback.report.loads.filter((load) => load.type === 'main').map((load) => `${load.url} ${load.bytes} B ${load.totalMs} ms`),
  });

test.describe('in Chromium on a throttled link', () => {
  test.use({ cpuLock: 'exclusive' });

  test('slides on a 1.2 Mb/s link: hls.js climbs to the top rung, as the encoded averages allow, without a stall; nominal averages would keep it down', async () => {
    test.setTimeout(300_000);
    const { src, multivariant } = settled.slides!;
    const topHeight = Math.max(...multivariant.video.map((variant) => variant.resolution?.height ?? 0));
    const linkKbps = 1_200;

    const honest = await playOnLink(src, linkKbps);
    expect(honest.report.fatal, summary(multivariant, honest)).toBeNull();
    expect(honest.position, summary(multivariant, honest)).toBeGreaterThanOrEqual(PLAY_SECONDS);
    expect(honest.stalls, summary(multivariant, honest)).toBe(0);
    expect(honest.heightsPlayed.at(-1), summary(multivariant, honest)).toBe(topHeight);

    // The control: the same playlist with each rung's average set to its peak, as a playlist that
    // declares nominal rates does. hls.js then never sees the top rung fit the link.
    const peaksOnly = await playOnLink(src, linkKbps, (text) =>
      text.replace(/AVERAGE-BANDWIDTH=\d+,BANDWIDTH=(\d+)|BANDWIDTH=(\d+),AVERAGE-BANDWIDTH=\d+/g, (_match, first: string | undefined, second: string | undefined) => {
        const peak = first ?? second;
        return `BANDWIDTH=${peak},AVERAGE-BANDWIDTH=${peak}`;
      }),
    );
    expect(peaksOnly.position, summary(multivariant, peaksOnly)).toBeGreaterThanOrEqual(PLAY_SECONDS);
    expect(peaksOnly.heightsPlayed, summary(multivariant, peaksOnly)).not.toContain(topHeight);
  });

  test('grain on a 2 Mb/s link: hls.js settles on the highest rung whose encoded average fits its margin, never above the link, without a stall', async () => {
    test.setTimeout(300_000);
    const { src, multivariant } = settled.grain!;
    const linkKbps = 2_000;
    // hls.js switches up only to a rung whose bitrate is at most 70 % of its estimate (bwUpFactor).
    const fitting = multivariant.video.filter((variant) => variant.averageBandwidth! <= 0.7 * linkKbps * 1000);
    const expectedHeight = Math.max(...fitting.map((variant) => variant.resolution?.height ?? 0));
    const lowestHeight = Math.min(...multivariant.video.map((variant) => variant.resolution?.height ?? 0));
    expect(expectedHeight, 'a rung above the lowest fits the link, so the choice means something').toBeGreaterThan(lowestHeight);
    const averageOf = new Map(multivariant.video.map((variant) => [variant.resolution?.height ?? 0, variant.averageBandwidth!]));

    const playback = await playOnLink(src, linkKbps);
    const context = summary(multivariant, playback);
    expect(playback.report.fatal, context).toBeNull();
    expect(playback.position, context).toBeGreaterThanOrEqual(PLAY_SECONDS);
    expect(playback.stalls, context).toBe(0);
    // The first segment comes from the first-listed rung, before hls.js has measured anything.
    for (const height of playback.heightsPlayed.slice(1)) expect(averageOf.get(height), context).toBeLessThanOrEqual(linkKbps * 1000);
    expect(playback.heightsPlayed.at(-1), context).toBe(expectedHeight);
  });
});
