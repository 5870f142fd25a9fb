import { chromium, type Browser } from '@playwright/test';
import { SqliteAssetDb } from './asset-db';
import { createReadyAsset } from './keyframe-api';
import { startBenchServer } from './bench-server';
import { chromiumLaunchOptions } from '../chromium';
import { startPlayerPageServer, type PlayerReport } from '../player-page';
import { startStaticServer } from '../static-server';
import { median, round, sleep } from '../stats';

// A viewer's first minute of a brand-new asset: hls.js in the system Chromium plays it right after
// it turns ready (nothing encoded yet, the audio encode just starting), on a server with the
// default settings (prefetch on). Counts stalls after the first frame: `waiting` events and
// hls.js BUFFER_STALLED errors. Several inputs (the clean one and a camera-like one) are played
// interleaved on the same server, each `runs` times.

export type ColdPlaybackRun = {
  /** Which input the asset was made from (e.g. "clean 300 s"). */
  input: string;
  /** 1…runs for each input. */
  run: number;
  assetId: string;
  stalls: number;
  waitingAfterPlaying: number;
  bufferStalledErrors: number;
  /** From hls.loadSource to the first `playing` event. */
  startupMs: number | null;
  reachedSeconds: number;
  wallSeconds: number;
  fatal: unknown;
  levelSwitches: Array<{ atMs: number; height: number | null }>;
  slowestLoads: PlayerReport['loads'];
  /** Everything the page recorded (times are page time; `startedAtMs` is when loading began). */
  timeline: { startedAtMs: number; events: PlayerReport['events']; loads: PlayerReport['loads'] };
};

export type ColdPlaybackInputSummary = { input: string; runs: number; medianStalls: number | null; maxStalls: number | null; medianStartupMs: number | null };

export type ColdPlaybackResult = {
  seconds: number;
  /** In the order played: inputs interleaved (clean, camera, clean, camera, …). */
  runs: ColdPlaybackRun[];
  inputs: ColdPlaybackInputSummary[];
  medianStalls: number | null;
  maxStalls: number | null;
};

const POLL_MS = 250;

const playOnce = async ({
  browser,
  pageOrigin,
  src,
  seconds,
}: {
  browser: Browser;
  pageOrigin: string;
  src: string;
  seconds: number;
}): Promise<Omit<ColdPlaybackRun, 'assetId' | 'input' | 'run'>> => {
  const context = await browser.newContext({ viewport: { width: 1000, height: 700 } });
  try {
    const page = await context.newPage();
    await page.goto(`${pageOrigin}/`);
    const startedAt = await page.evaluate((url) => {
      const started = performance.now();
      (window as unknown as { startPlayback: (src: string) => boolean }).startPlayback(url);
      return started;
    }, src);
    const readReport = () => page.evaluate(() => (window as unknown as { report: PlayerReport }).report);
    const currentTime = () => page.evaluate(() => (document.getElementById('video') as HTMLVideoElement).currentTime);
    const wallStarted = Date.now();
    // Generous: a player that stalls a lot still gets to the end, so the count is complete.
    const deadline = wallStarted + (seconds * 3 + 30) * 1000;
    let position = 0;
    let report = await readReport();
    while (Date.now() < deadline) {
      position = await currentTime();
      report = await readReport();
      if (position >= seconds || report.fatal) break;
      await sleep(POLL_MS);
    }
    return {
      stalls: report.waitingAfterPlaying + report.bufferStalled,
      waitingAfterPlaying: report.waitingAfterPlaying,
      bufferStalledErrors: report.bufferStalled,
      startupMs: report.firstPlayingAt === null ? null : Math.round(report.firstPlayingAt - startedAt),
      reachedSeconds: round(position, 2),
      wallSeconds: round((Date.now() - wallStarted) / 1000, 2),
      fatal: report.fatal,
      levelSwitches: report.levelSwitches.map((change) => ({
        atMs: Math.round(change.t - startedAt),
        height: report.levels[change.level]?.height ?? null,
      })),
      slowestLoads: [...report.loads].sort((a, b) => b.totalMs - a.totalMs).slice(0, 5),
      timeline: { startedAtMs: Math.round(startedAt), events: report.events, loads: report.loads },
    };
  } finally {
    await context.close();
  }
};

export const measureColdPlaybackOnFreshServer = async ({
  repoRoot,
  env,
  inputs: playbackInputs,
  seconds,
  runs,
  log,
}: {
  repoRoot: string;
  env: Record<string, string>;
  /** Each input is played `runs` times, interleaved with the others. */
  inputs: Array<{ label: string; path: string }>;
  seconds: number;
  runs: number;
  log: (line: string) => void;
}): Promise<{ result: ColdPlaybackResult; serverLogTail: string[] }> => {
  log('cold playback: starting a fresh Keyframe server (default settings) and Chromium…');
  const server = await startBenchServer({ env });
  const files = await startStaticServer(Object.fromEntries(playbackInputs.map((input, index) => [`input-${index}.mp4`, input.path])));
  const pages = await startPlayerPageServer(repoRoot);
  const browser = await chromium.launch(chromiumLaunchOptions);
  const db = new SqliteAssetDb(server.dataDir);
  try {
    const token = await server.createToken();
    const results: ColdPlaybackRun[] = [];
    for (let run = 1; run <= runs; run++) {
      for (const [index, input] of playbackInputs.entries()) {
        const asset = await createReadyAsset(server.baseUrl, token, db, files.url(`input-${index}.mp4`));
        const played = await playOnce({ browser, pageOrigin: pages.origin, src: `${server.baseUrl}/${asset.playbackId}.m3u8`, seconds });
        log(
          `cold playback ${input.label} ${run}/${runs}: ${played.stalls} stall(s), startup ${played.startupMs} ms, reached ${played.reachedSeconds} s in ${played.wallSeconds} s, ` +
            `levels ${played.levelSwitches.map((change) => change.height).join('→')}`,
        );
        results.push({ input: input.label, run, assetId: asset.assetId, ...played });
        // The previous asset's prefetches and audio encode finish before the next viewer starts.
        await sleep(5_000);
      }
    }
    const stalls = results.map((entry) => entry.stalls);
    return {
      result: {
        seconds,
        runs: results,
        inputs: playbackInputs.map((input) => {
          const mine = results.filter((entry) => entry.input === input.label);
          const startups = mine.map((entry) => entry.startupMs).filter((value): value is number => value !== null);
          return {
            input: input.label,
            runs: mine.length,
            medianStalls: median(mine.map((entry) => entry.stalls)),
            maxStalls: mine.length ? Math.max(...mine.map((entry) => entry.stalls)) : null,
            medianStartupMs: median(startups),
          };
        }),
        medianStalls: median(stalls),
        maxStalls: stalls.length ? Math.max(...stalls) : null,
      },
      serverLogTail: server.logs().split('\n').filter(Boolean).slice(-20),
    };
  } finally {
    await db.close();
    await browser.close();
    await pages.close();
    await files.close();
    await server.dispose();
  }
};
