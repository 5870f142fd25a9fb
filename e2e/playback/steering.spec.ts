import { chromium, type Browser } from '@playwright/test';
import { startPlayerPageServer } from '../../harness/player-page';
import { Api } from '../support/api';
import { chromiumLaunchOptions } from '../../harness/chromium';
import { httpGet, parseMediaPlaylist } from '../support/hls';
import { HLS_JS_PATH } from '../support/hls-page';
import type { KeyframeServer } from '../support/keyframe-server';
import { REPO_ROOT } from '../../harness/paths';
import { createPlayableAsset, expect, loadMultivariant, multivariantUrl, test } from '../support/playback';
import { disposeKeyframe, startKeyframe } from '../support/test';

// Under load Keyframe refuses a cold segment that cannot be encoded by its viewer's deadline with
// a 429 when a cheaper rung can (affordable-rungs.ts), relying on players to fetch the same
// segment from a lower variant instead of retrying or giving up. This checks that contract against
// the real hls.js in Chromium: the refusal (exactly as Keyframe answers it) is injected on the top
// rung's first segment, since making the encoders late on cue would make the test depend on timing.

// Mid-stream, where Keyframe refuses: a starting player is steered by the multivariant playlist
// instead, since hls.js 1.7 stalls when a refusal lands while the first init segment is loading.
const REFUSED_SEGMENT = 2;

test.use({ cpuLock: 'exclusive' });

let keyframe: KeyframeServer;
let api: Api;
let pageServer: Awaited<ReturnType<typeof startPlayerPageServer>> | undefined;
let browser: Browser | undefined;

test.beforeAll(async () => {
  keyframe = await startKeyframe({ label: 'playback-steering' });
  api = new Api(keyframe.baseUrl, await keyframe.createToken());
  pageServer = await startPlayerPageServer(REPO_ROOT);
});

test.afterAll(async () => {
  await browser?.close();
  await pageServer?.close();
  await disposeKeyframe(keyframe);
});

type SteeringReport = {
  loads: { level: number; sn: number; type: string }[];
  errors: { details: string; fatal: boolean; code: number | null; level: number | null }[];
  currentTime: number;
};

test('hls.js answers a 429 on a segment by fetching it from a lower rung, without a fatal error', async ({ playbackFixtures, playbackMedia }) => {
  test.setTimeout(120_000);
  await playbackFixtures.ensure('landscape1080p');
  const { playbackId } = await createPlayableAsset(api, playbackMedia.fileUrl(playbackFixtures.file('landscape1080p')));
  const src = multivariantUrl(keyframe, playbackId);
  const { video: variants } = await loadMultivariant(src);
  const top = [...variants].sort((a, b) => b.bandwidth - a.bandwidth)[0]!;
  const topRung = top.name;
  // The top rung's first segments are encoded before the player starts: loaded from the cache they
  // come fast, so hls.js's ABR keeps the top rung until the refusal instead of abandoning a slow cold
  // encode (or the 1080p encodes making the encoders look busy) before it gets there.
  const topPlaylist = parseMediaPlaylist((await httpGet(top.url)).text, top.url);
  for (const url of [topPlaylist.map!.url, ...topPlaylist.segments.slice(0, REFUSED_SEGMENT).map((segment) => segment.url)]) {
    expect((await httpGet(url)).status, url).toBe(200);
  }

  browser = await chromium.launch(chromiumLaunchOptions);
  const page = await browser.newPage();
  let refused = 0;
  // The refusal Keyframe sends (status, headers and body), for the first request of the segment on
  // the top rung.
  await page.route(`**/${playbackId}/${topRung}/${REFUSED_SEGMENT}.m4s*`, async (route) => {
    if (refused > 0) return route.continue();
    refused++;
    await route.fulfill({
      status: 429,
      headers: {
        'access-control-allow-origin': '*',
        'content-type': 'application/json; charset=utf-8',
        'cache-control': 'no-store',
        'retry-after': '10',
      },
      body: JSON.stringify({ error: { type: 'too_many_requests', messages: [`Segment ${REFUSED_SEGMENT} of ${topRung} cannot be encoded in time right now`] } }),
    });
  });
  await page.goto(`${pageServer!.origin}/`);
  await page.addScriptTag({ path: HLS_JS_PATH });
  await page.evaluate(
    ({ url, startLevel }) => {
      type HlsEventData = { frag: { level: number; sn: number; type: string }; details?: string; fatal?: boolean; response?: { code: number } };
      type HlsLike = {
        on(event: string, handler: (event: string, data: HlsEventData) => void): void;
        loadSource(url: string): void;
        attachMedia(media: HTMLMediaElement): void;
      };
      const win = window as unknown as { Hls: { Events: Record<string, string>; new (config: object): HlsLike }; steering: SteeringReport };
      const report: SteeringReport = { loads: [], errors: [], currentTime: 0 };
      win.steering = report;
      const video = document.createElement('video');
      video.muted = true;
      document.body.append(video);
      const hls = new win.Hls({ startLevel });
      hls.on(win.Hls.Events.FRAG_LOADED!, (_event, data) => report.loads.push({ level: data.frag.level, sn: data.frag.sn, type: data.frag.type }));
      hls.on(win.Hls.Events.ERROR!, (_event, data) =>
        report.errors.push({ details: String(data.details), fatal: Boolean(data.fatal), code: data.response?.code ?? null, level: data.frag?.level ?? null }),
      );
      hls.on(win.Hls.Events.MANIFEST_PARSED!, () => void video.play().catch(() => undefined));
      video.addEventListener('timeupdate', () => (report.currentTime = video.currentTime));
      hls.loadSource(url);
      hls.attachMedia(video);
    },
    // hls.js orders levels by bitrate: the top rung is the last.
    { url: src, startLevel: variants.length - 1 },
  );

  const read = () => page.evaluate(() => (window as unknown as { steering: SteeringReport }).steering);
  const deadline = Date.now() + 60_000;
  while ((await read()).currentTime <= 8 && Date.now() < deadline) await page.waitForTimeout(250);
  const report = await read();
  expect(report.currentTime, JSON.stringify(report)).toBeGreaterThan(8);
  expect(refused, `the top rung was asked for first: ${JSON.stringify(report)}`).toBe(1);
  const refusal = report.errors.find((error) => error.code === 429);
  expect(refusal, JSON.stringify(report.errors)).toMatchObject({ details: 'fragLoadError', fatal: false, level: variants.length - 1 });
  expect(report.errors.filter((error) => error.fatal)).toEqual([]);
  // The refused segment came from a lower rung, with no second attempt on the refused one first.
  const video = report.loads.filter((load) => load.type === 'main');
  expect(video.find((load) => load.sn === REFUSED_SEGMENT)?.level, JSON.stringify(video)).toBeLessThan(variants.length - 1);
  expect(video.filter((load) => load.sn > REFUSED_SEGMENT).length, 'playback went on past it').toBeGreaterThan(0);
});
