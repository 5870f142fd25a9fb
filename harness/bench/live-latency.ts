import type { Browser, Page } from '@playwright/test';
import type { PlayerReport } from '../player-page';
import { median, percentile, round, sleep } from '../stats';

// One viewer of a live stream: hls.js with its default configuration (the player page of the
// cold-playback phase) in Chromium, for `seconds` of playback. After a settling period it samples
// once a second how far the frame on screen is behind the wall clock: Date.now() − hls.playingDate
// (the frame's EXT-X-PROGRAM-DATE-TIME, i.e. when it reached the ingest), and hls.latency (hls.js's
// own distance to the live edge of the playlist, which does not see the packaging delay).
// Stalls are `waiting` events after the first `playing`.

export type LatencySample = {
  atSeconds: number;
  latencySeconds: number | null;
  hlsLatencySeconds: number | null;
  bufferSeconds: number;
  currentTime: number;
  droppedFrames: number;
};

export type LivePlayback = {
  /** hls.loadSource → first `playing`. */
  startupMs: number | null;
  playedSeconds: number;
  samples: LatencySample[];
  medianLatencySeconds: number | null;
  p95LatencySeconds: number | null;
  medianHlsLatencySeconds: number | null;
  /** At the first sample, before any drift. */
  firstLatencySeconds: number | null;
  /**
   * Media seconds played per wall-clock second over the samples (the player's clock, and any stall).
   * Below 1 the player falls behind the live edge by that much, which hls.js's default
   * configuration does not correct (maxLiveSyncPlaybackRate 1).
   */
  playbackRate: number | null;
  droppedFrames: number;
  /** hls.js's own target (three target durations, or PART-HOLD-BACK with parts). */
  targetLatencySeconds: number | null;
  stalls: number;
  bufferStalledErrors: number;
  fatal: unknown;
  errors: string[];
  levelsPlayed: string[];
  lowLatencyParts: boolean;
};

type PageState = {
  now: number;
  playingDateMs: number | null;
  hlsLatency: number | null;
  targetLatency: number | null;
  currentTime: number;
  bufferEnd: number;
  droppedFrames: number;
  lowLatencyParts: boolean;
  report: PlayerReport;
};

type HlsOnPage = {
  playingDate: Date | null;
  latency: number;
  targetLatency: number | null;
  levels: Array<{ height: number }>;
  currentLevel: number;
  levelDetails?: { partList?: unknown[] | null } | null;
  latestLevelDetails?: { partList?: unknown[] | null } | null;
};

const readState = (): PageState => {
  const win = window as unknown as { hls: HlsOnPage; report: PlayerReport };
  const video = document.getElementById('video') as HTMLVideoElement;
  const details = win.hls.latestLevelDetails ?? win.hls.levelDetails ?? null;
  const buffered = video.buffered.length > 0 ? video.buffered.end(video.buffered.length - 1) : video.currentTime;
  return {
    now: Date.now(),
    playingDateMs: win.hls.playingDate ? win.hls.playingDate.getTime() : null,
    hlsLatency: Number.isFinite(win.hls.latency) ? win.hls.latency : null,
    targetLatency: typeof win.hls.targetLatency === 'number' && Number.isFinite(win.hls.targetLatency) ? win.hls.targetLatency : null,
    currentTime: video.currentTime,
    bufferEnd: buffered,
    droppedFrames: video.getVideoPlaybackQuality().droppedVideoFrames,
    lowLatencyParts: Boolean(details?.partList && details.partList.length > 0),
    report: win.report,
  };
};

/** The player page, opened ahead of time so that the browser's own start-up does not delay the viewer. */
export const openPlayerPage = async (browser: Browser, pageOrigin: string): Promise<{ page: Page; close: () => Promise<void> }> => {
  const context = await browser.newContext({ viewport: { width: 1000, height: 700 } });
  try {
    const page = await context.newPage();
    await page.goto(`${pageOrigin}/`);
    return { page, close: () => context.close() };
  } catch (error) {
    await context.close();
    throw error;
  }
};

export const playLive = async ({
  page,
  src,
  seconds,
  settleSeconds,
}: {
  page: Page;
  src: string;
  seconds: number;
  /** Samples start this long after the first frame (hls.js settles on its live position first). */
  settleSeconds: number;
}): Promise<LivePlayback> => {
  const loadStartedAt = await page.evaluate((url) => {
    const started = performance.now();
    (window as unknown as { startPlayback: (src: string) => boolean }).startPlayback(url);
    return started;
  }, src);
  const startupDeadline = Date.now() + 30_000;
  let state = await page.evaluate(readState);
  while (state.report.firstPlayingAt === null && !state.report.fatal && Date.now() < startupDeadline) {
    await sleep(100);
    state = await page.evaluate(readState);
  }
  if (state.report.firstPlayingAt === null) {
    return {
      startupMs: null, playedSeconds: 0, samples: [], medianLatencySeconds: null, p95LatencySeconds: null, medianHlsLatencySeconds: null,
      firstLatencySeconds: null, playbackRate: null, droppedFrames: state.droppedFrames,
      targetLatencySeconds: state.targetLatency, stalls: state.report.waitingAfterPlaying, bufferStalledErrors: state.report.bufferStalled,
      fatal: state.report.fatal ?? 'no frame played within 30 s', errors: state.report.errors.map((error) => `${error.type}/${error.details}`),
      levelsPlayed: [], lowLatencyParts: state.lowLatencyParts,
    };
  }
  const playingSince = Date.now();
  const samples: LatencySample[] = [];
  let lowLatencyParts = state.lowLatencyParts;
  for (let second = 1; second <= seconds; second += 1) {
    await sleep(Math.max(0, playingSince + second * 1000 - Date.now()));
    state = await page.evaluate(readState);
    lowLatencyParts ||= state.lowLatencyParts;
    if (state.report.fatal) break;
    if (second < settleSeconds) continue;
    samples.push({
      atSeconds: round((state.now - playingSince) / 1000, 3),
      latencySeconds: state.playingDateMs === null ? null : round((state.now - state.playingDateMs) / 1000, 3),
      hlsLatencySeconds: state.hlsLatency === null ? null : round(state.hlsLatency, 3),
      bufferSeconds: round(state.bufferEnd - state.currentTime, 2),
      currentTime: round(state.currentTime, 3),
      droppedFrames: state.droppedFrames,
    });
  }
  const latencies = samples.map((sample) => sample.latencySeconds).filter((value): value is number => value !== null);
  const hlsLatencies = samples.map((sample) => sample.hlsLatencySeconds).filter((value): value is number => value !== null);
  const report = state.report;
  const first = samples[0];
  const last = samples.at(-1);
  const playbackRate = first && last && last.atSeconds > first.atSeconds ? round((last.currentTime - first.currentTime) / (last.atSeconds - first.atSeconds), 3) : null;
  return {
    startupMs: Math.round((report.firstPlayingAt ?? loadStartedAt) - loadStartedAt),
    playedSeconds: round((Date.now() - playingSince) / 1000, 1),
    samples,
    medianLatencySeconds: median(latencies),
    p95LatencySeconds: percentile(latencies, 95),
    medianHlsLatencySeconds: median(hlsLatencies),
    firstLatencySeconds: first?.latencySeconds ?? null,
    playbackRate,
    droppedFrames: state.droppedFrames,
    targetLatencySeconds: state.targetLatency === null ? null : round(state.targetLatency, 2),
    stalls: report.waitingAfterPlaying,
    bufferStalledErrors: report.bufferStalled,
    fatal: report.fatal,
    errors: report.errors.map((error) => `${error.type}/${error.details}${error.fatal ? ' (fatal)' : ''}`),
    levelsPlayed: [...new Set(report.levelSwitches.map((change) => `${report.levels[change.level]?.height ?? '?'}p`))],
    lowLatencyParts,
  };
};
