import { chromium, type BrowserContext, type Page } from '@playwright/test';
import { chromiumLaunchOptions } from '../chromium';
import { REPO_ROOT } from '../paths';
import { startPlayerPageServer } from '../player-page';
import { formatMs, round, sleep } from '../stats';
import { spread, stalledShares, type Spread } from './load';
import { table } from './report-sections';
import { CHECK_SCRIPT, SAMPLE_MS, STALL_MS, type PageCheck, type PageError, type PageLoad, type PageRequest } from './capacity-browser-page';

export { STALL_MS };

// The capacity curve's check of its simulated viewers (simulated-viewer.ts) against the real
// thing: at one N, `playersPerAsset` hls.js players (default config, muted autoplay) per playback
// ID in one Chromium, all started at once on assets that are fresh (nothing encoded yet), each for
// `wallSeconds` from its own start. Each player has a browser context of its own (its own
// connections, as each simulated viewer has its own six), on the player page of player-page.ts
// with a recorder added (CHECK_SCRIPT). Playwright's Chromium switches already keep pages from
// being backgrounded (no timer throttling, no renderer backgrounding, occluded windows count as
// visible); the media suspend for background players is switched off as well, and every page
// reports whether it ever was hidden.
//
// A stall is read off the playhead, not the `waiting` event: after the first frame, the page
// samples currentTime every 100 ms, and a stall is the playhead not moving for STALL_MS or more
// while the video is neither paused nor ended. It lasts from the last sample that saw it move to
// the first that sees it move again, and one still going at the end of the budget counts up to the
// end (as the simulated viewer's timeline does). `waiting` events after the first `playing` (and
// their time until the next `playing`) and hls.js BUFFER_STALLED errors are recorded beside it:
// `waiting` follows Chromium's readyState bookkeeping (it also comes with the seeks and gap nudges
// hls.js makes, and a stall missed or doubled there is invisible), while the playhead is what the
// viewer sees and does not depend on how often the page's timer runs (it compares positions).


/** A video segment hls.js did not get from `rung` (429 or cancelled), and where it got it next (null: not within the budget). */
export type SegmentOutcome = { atMs: number; rung: string; sn: number | null; then: string | null; thenAfterMs: number | null };

export type BrowserPlayerRow = {
  asset: number;
  /** 0… within its asset (the simulated viewers' `viewer`). */
  player: number;
  playbackId: string;
  /** Player start (loadSource) → first `playing` (or the first sample with currentTime > 0, if earlier). */
  startupMs: number | null;
  /** Player start → the first video segment and the first audio segment both loaded (where the simulated viewer starts playback). */
  firstSegmentMs: number | null;
  firstVideoSegmentMs: number | null;
  firstAudioSegmentMs: number | null;
  /** Player start → hls.js's FRAG_BUFFERED for the first video segment (appended to the SourceBuffer). */
  firstVideoBufferedMs: number | null;
  /** Playhead stalls after the start (see STALL_MS). */
  stalls: number;
  stalledSeconds: number;
  /** `waiting` events after the first `playing`, and the time until the next `playing`. */
  waitingEvents: number;
  waitingSeconds: number;
  bufferStalledErrors: number;
  reachedSeconds: number;
  durationSeconds: number | null;
  reachedEnd: boolean;
  /** The level of the first video segment hls.js loaded. */
  startRung: string | null;
  /** Video segments loaded per rung (an hls.js reload of a segment counts again). */
  segmentsByRung: Record<string, number>;
  /** Video segments loaded again (the same media sequence number, any rung). */
  reloadedSegments: number;
  levelSwitches: Array<{ atMs: number; rung: string }>;
  /** 429s on video segments (steering), and what hls.js fetched the segment from next. */
  refusals: SegmentOutcome[];
  /** Video segment loads hls.js's ABR cancelled to switch down (its abandon rule), and what came next for that segment. */
  abortedLoads: SegmentOutcome[];
  /** FRAG_LOAD_EMERGENCY_ABORTED events: the abandon rule decided to switch down (the load may still have finished). */
  emergencyAborts: number;
  /** Seconds buffered ahead of the playhead when each video segment after the start was requested. */
  aheadAtVideoRequestSeconds: Spread;
  /** Network errors other than a 429 on a video segment or a load the ABR cancelled (HTTP status, or 0 without an answer). */
  httpErrors: number;
  errorSamples: string[];
  fatal: string | null;
  videoFetchMs: Spread;
  /** The first requests, in hls.js's order. */
  firstRequests: string[];
  /** Pages must stay visible: sampler intervals over 1 s or hidden samples say they were not. */
  hiddenSamples: number;
  maxSampleGapMs: number;
};

export type BrowserCheckResult = {
  hlsJsVersion: string | null;
  chromiumVersion: string;
  stallRule: string;
  assets: number;
  playersPerAsset: number;
  players: number;
  wallSeconds: number;
  /** Spread of the players' start times (they are started together). */
  startSpreadMs: number;
  /** The ladder as hls.js ordered it (lowest bitrate first), from the first player. */
  ladder: Array<{ rung: string; height: number; bitrate: number }>;
  stalls: number;
  stalledSeconds: number;
  playersWithStalls: number;
  playersStarted: number;
  playersReachedEnd: number;
  waitingEvents: number;
  waitingSeconds: number;
  bufferStalledErrors: number;
  /** Stalled seconds ÷ watched seconds (played + stalled): the worst started player, and all together (as capacity.ts). */
  worstStalledShare: number;
  stalledShare: number;
  startupMs: Spread;
  /** Player start → the first video and audio segments in (the simulated viewer's start of playback). */
  firstSegmentMs: Spread;
  /** FRAG_LOADED stats, loading.start → loading.end. */
  videoFetchMs: Spread;
  videoFetchAfterStartMs: Spread;
  audioFetchMs: Spread;
  /** Playlists and init segments. */
  otherFetchMs: Spread;
  httpErrors: number;
  errorSamples: string[];
  rungsPlayed: Record<string, number>;
  startRungs: string[];
  rungSwitches: number;
  reloadedSegments: number;
  /** 429s on video segments. */
  steeredSegments: number;
  /** What hls.js fetched a refused segment from next: "next lower", "2 lower", "same", "higher", "not fetched". */
  steeredTo: Record<string, number>;
  /** Video segment loads the ABR cancelled, and where the segment came from next. */
  abortedLoads: number;
  abortedThen: Record<string, number>;
  emergencyAborts: number;
  /** Seconds buffered ahead when each video segment after the start was requested (the simulated viewers: 10 s pace, 30 s at most). */
  aheadAtVideoRequestSeconds: Spread;
  fatalErrors: number;
  perPlayer: BrowserPlayerRow[];
};

const isSegment = <T extends { sn: number | 'initSegment' }>(load: T): load is T & { sn: number } => typeof load.sn === 'number';

const spans = (intervals: Array<{ start: number; end: number | null }>, until: number): number =>
  intervals.reduce((sum, interval) => sum + Math.max(0, (interval.end ?? until) - interval.start), 0) / 1000;

const summarisePlayer = (asset: number, player: number, playbackId: string, check: PageCheck): BrowserPlayerRow & { fetches: { video: number[]; videoAfterStart: number[]; audio: number[]; other: number[]; ahead: number[] } } => {
  const at = (t: number) => Math.round(t - check.startedAt);
  const rungOf = (level: number | null) => (level === null ? '?' : (check.levels[level]?.rung ?? `level ${level}`));
  const end = check.final?.at ?? performance.now();
  const startedAt = [check.firstPlayingAt, check.firstAdvanceAt].filter((value): value is number => value !== null);
  const playStart = startedAt.length > 0 ? Math.min(...startedAt) : null;
  const video = check.loads.filter((load) => load.type === 'main' && isSegment(load));
  const audio = check.loads.filter((load) => load.type === 'audio' && isSegment(load));
  const inits = check.loads.filter((load) => !isSegment(load));
  const ms = (load: PageLoad) => round(load.end - load.start, 1);
  const segmentsByRung: Record<string, number> = {};
  const seen = new Set<number | string>();
  let reloadedSegments = 0;
  for (const load of video) {
    const rung = rungOf(load.level);
    segmentsByRung[rung] = (segmentsByRung[rung] ?? 0) + 1;
    if (seen.has(load.sn)) reloadedSegments++;
    seen.add(load.sn);
  }
  const outcome = (error: PageError): SegmentOutcome => {
    const next = video.find((load) => load.sn === error.sn && load.end >= error.t);
    const step = next && error.level !== null ? error.level - next.level : null;
    const then = !next ? null : step === 1 ? 'next lower' : step === 0 ? 'same' : step !== null && step > 1 ? `${step} lower` : 'higher';
    return { atMs: at(error.t), rung: rungOf(error.level), sn: typeof error.sn === 'number' ? error.sn : null, then, thenAfterMs: next ? Math.round(next.end - error.t) : null };
  };
  const isRefusal = (error: PageError) => error.code === 429 && error.fragType === 'main';
  const isAbort = (error: PageError) => error.details === 'aborted';
  const refusals = check.errors.filter((error) => isRefusal(error) && typeof error.sn === 'number').map(outcome);
  const abortedLoads = check.errors.filter((error) => isAbort(error) && error.fragType === 'main' && typeof error.sn === 'number').map(outcome);
  const networkErrors = check.errors.filter((error) => error.type === 'networkError' && !isRefusal(error) && !isAbort(error));
  const aheadAtRequests =
    playStart === null ? [] : check.requests.filter((entry) => entry.what === 'main' && typeof entry.sn === 'number' && entry.t >= playStart).map((entry) => round(entry.ahead, 1));
  const fatal = check.errors.find((error) => error.fatal);
  const describe = (error: PageError) =>
    `${error.details}${error.code !== null ? ` ${error.code}` : ''}${error.fragType ? ` ${error.fragType} ${rungOf(error.level)} #${String(error.sn)}` : ''}${error.fatal ? ' (fatal)' : ''}`;
  const firstVideo = video[0];
  const firstAudio = audio[0];
  const hasAudio = check.requests.some((entry) => entry.what === 'audio-track' || entry.what === 'audio');
  const describeRequest = (entry: PageRequest) =>
    entry.what === 'manifest' || entry.what === 'audio-track'
      ? entry.what
      : entry.what === 'level'
        ? `playlist ${rungOf(entry.level)}`
        : `${entry.what === 'main' ? rungOf(entry.level) : entry.what} ${entry.sn === 'initSegment' ? 'init' : `#${String(entry.sn)}`}`;
  const describeTimed = (entry: PageRequest) => `${describeRequest(entry)} @${at(entry.t)} ms`;
  const reachedEnd = check.endedAt !== null || check.final?.ended === true;
  return {
    asset,
    player,
    playbackId,
    startupMs: playStart === null ? null : Math.round(playStart - check.startedAt),
    firstSegmentMs: firstVideo && (firstAudio || !hasAudio) ? Math.round(Math.max(firstVideo.end, firstAudio?.end ?? 0) - check.startedAt) : null,
    firstVideoSegmentMs: firstVideo ? Math.round(firstVideo.end - check.startedAt) : null,
    firstAudioSegmentMs: firstAudio ? Math.round(firstAudio.end - check.startedAt) : null,
    firstVideoBufferedMs: check.firstVideoBufferedAt === null ? null : Math.round(check.firstVideoBufferedAt - check.startedAt),
    stalls: check.stalls.length,
    stalledSeconds: round(spans(check.stalls, end), 2),
    waitingEvents: check.waiting.length,
    waitingSeconds: round(spans(check.waiting, end), 2),
    bufferStalledErrors: check.errors.filter((error) => error.details === 'bufferStalledError').length,
    reachedSeconds: round(reachedEnd && check.final?.duration ? check.final.duration : (check.final?.currentTime ?? 0), 1),
    durationSeconds: check.final?.duration === null || check.final?.duration === undefined ? null : round(check.final.duration, 1),
    reachedEnd,
    startRung: firstVideo ? rungOf(firstVideo.level) : null,
    segmentsByRung,
    reloadedSegments,
    levelSwitches: check.switches.map((change) => ({ atMs: at(change.t), rung: rungOf(change.level) })),
    refusals,
    abortedLoads,
    emergencyAborts: check.aborts.length,
    aheadAtVideoRequestSeconds: spread(aheadAtRequests),
    httpErrors: networkErrors.length,
    errorSamples: [...new Set(check.errors.filter((error) => error.details !== 'bufferStalledError').map(describe))].slice(0, 5),
    fatal: fatal ? describe(fatal) : null,
    videoFetchMs: spread(video.map(ms)),
    firstRequests: check.requests.slice(0, 12).map(describeTimed),
    hiddenSamples: check.hiddenSamples,
    maxSampleGapMs: Math.round(check.maxSampleGapMs),
    fetches: {
      video: video.map(ms),
      videoAfterStart: playStart === null ? [] : video.filter((load) => load.start >= playStart).map(ms),
      audio: audio.map(ms),
      other: [...inits.map(ms), ...check.playlists.map((entry) => round(entry.ms, 1))],
      ahead: aheadAtRequests,
    },
  };
};

const summariseChecks = (
  rows: Array<ReturnType<typeof summarisePlayer>>,
  meta: Pick<BrowserCheckResult, 'hlsJsVersion' | 'chromiumVersion' | 'assets' | 'playersPerAsset' | 'wallSeconds' | 'startSpreadMs' | 'ladder'>,
): BrowserCheckResult => {
  const sum = (pick: (row: BrowserPlayerRow) => number) => rows.reduce((total, row) => total + pick(row), 0);
  const rungsPlayed: Record<string, number> = {};
  for (const row of rows) for (const [rung, count] of Object.entries(row.segmentsByRung)) rungsPlayed[rung] = (rungsPlayed[rung] ?? 0) + count;
  const tally = (outcomes: SegmentOutcome[]): Record<string, number> => {
    const counts: Record<string, number> = {};
    for (const entry of outcomes) counts[entry.then ?? 'not fetched'] = (counts[entry.then ?? 'not fetched'] ?? 0) + 1;
    return counts;
  };
  const shares = stalledShares(rows);
  const perPlayer = rows.map(({ fetches: _fetches, ...row }) => row);
  return {
    ...meta,
    stallRule: `the playhead (currentTime, sampled every ${SAMPLE_MS} ms) not moving for ≥ ${STALL_MS} ms after the first frame while neither paused nor ended`,
    players: rows.length,
    stalls: sum((row) => row.stalls),
    stalledSeconds: round(sum((row) => row.stalledSeconds), 1),
    playersWithStalls: rows.filter((row) => row.stalls > 0).length,
    playersStarted: rows.filter((row) => row.startupMs !== null).length,
    playersReachedEnd: rows.filter((row) => row.reachedEnd).length,
    waitingEvents: sum((row) => row.waitingEvents),
    waitingSeconds: round(sum((row) => row.waitingSeconds), 1),
    bufferStalledErrors: sum((row) => row.bufferStalledErrors),
    worstStalledShare: shares.worst,
    stalledShare: shares.all,
    startupMs: spread(rows.map((row) => row.startupMs).filter((value): value is number => value !== null)),
    firstSegmentMs: spread(rows.map((row) => row.firstSegmentMs).filter((value): value is number => value !== null)),
    videoFetchMs: spread(rows.flatMap((row) => row.fetches.video)),
    videoFetchAfterStartMs: spread(rows.flatMap((row) => row.fetches.videoAfterStart)),
    audioFetchMs: spread(rows.flatMap((row) => row.fetches.audio)),
    otherFetchMs: spread(rows.flatMap((row) => row.fetches.other)),
    httpErrors: sum((row) => row.httpErrors),
    errorSamples: [...new Set(rows.flatMap((row) => row.errorSamples))].slice(0, 5),
    rungsPlayed,
    startRungs: [...new Set(rows.map((row) => row.startRung).filter((rung): rung is string => rung !== null))],
    rungSwitches: sum((row) => Math.max(0, row.levelSwitches.length - 1)),
    reloadedSegments: sum((row) => row.reloadedSegments),
    steeredSegments: sum((row) => row.refusals.length),
    steeredTo: tally(rows.flatMap((row) => row.refusals)),
    abortedLoads: sum((row) => row.abortedLoads.length),
    abortedThen: tally(rows.flatMap((row) => row.abortedLoads)),
    emergencyAborts: sum((row) => row.emergencyAborts),
    aheadAtVideoRequestSeconds: spread(rows.flatMap((row) => row.fetches.ahead)),
    fatalErrors: rows.filter((row) => row.fatal !== null).length,
    perPlayer,
  };
};

const readHlsJsVersion = async (page: Page): Promise<string | null> =>
  page.evaluate('typeof Hls === "undefined" ? null : String(Hls.version)').then((value) => (typeof value === 'string' ? value : null));

/**
 * Plays `playersPerAsset` hls.js players per playback ID in one Chromium against a running
 * Keyframe server, all started at once, each for `wallSeconds`, and reports them in the shape of
 * the simulated viewers' pass (load.ts's ViewerPassResult) where the two measure the same thing.
 */
export const measureBrowserPlayers = async ({
  baseUrl,
  playbackIds,
  playersPerAsset,
  wallSeconds,
  log,
  repoRoot = REPO_ROOT,
}: {
  baseUrl: string;
  playbackIds: string[];
  playersPerAsset: number;
  wallSeconds: number;
  log: (line: string) => void;
  repoRoot?: string;
}): Promise<BrowserCheckResult> => {
  const pageServer = await startPlayerPageServer(repoRoot);
  const browser = await chromium.launch({
    ...chromiumLaunchOptions,
    args: [...(chromiumLaunchOptions.args ?? []), '--disable-background-media-suspend', '--autoplay-policy=no-user-gesture-required'],
  });
  const contexts: BrowserContext[] = [];
  try {
    const players: Array<{ asset: number; player: number; playbackId: string; page: Page }> = [];
    for (const [asset, playbackId] of playbackIds.entries()) {
      for (let player = 0; player < playersPerAsset; player++) {
        const context = await browser.newContext({ viewport: { width: 400, height: 300 } });
        contexts.push(context);
        const page = await context.newPage();
        await page.goto(`${pageServer.origin}/`);
        // A small picture: the decode is the same, the scaling and compositing cheaper.
        await page.addStyleTag({ content: 'video{width:320px!important;height:180px!important} pre{display:none}' });
        await page.addScriptTag({ content: CHECK_SCRIPT });
        players.push({ asset, player, playbackId, page });
      }
    }
    const hlsJsVersion = players[0] ? await readHlsJsVersion(players[0].page) : null;
    const wallMs = wallSeconds * 1000;
    log(`capacity browser check: ${players.length} hls.js ${hlsJsVersion ?? '?'} players (${playersPerAsset} per asset, ${playbackIds.length} assets) for ${wallSeconds} s…`);
    const startedEpochs = await Promise.all(
      players.map(({ page, playbackId }) =>
        page.evaluate(`window.startCheck(${JSON.stringify(`${baseUrl}/${playbackId}.m3u8`)}, ${wallMs}, ${STALL_MS}, ${SAMPLE_MS}).startedEpochMs`) as Promise<number>,
      ),
    );
    await sleep(wallMs);
    const checks = await Promise.all(
      players.map(async ({ page }) => {
        await page.waitForFunction('window.check && window.check.final !== null', undefined, { timeout: 30_000, polling: 200 });
        return (await page.evaluate('window.check')) as PageCheck;
      }),
    );
    const rows = players.map(({ asset, player, playbackId }, index) => summarisePlayer(asset, player, playbackId, checks[index] as PageCheck));
    const result = summariseChecks(rows, {
      hlsJsVersion,
      chromiumVersion: browser.version(),
      assets: playbackIds.length,
      playersPerAsset,
      wallSeconds,
      startSpreadMs: startedEpochs.length > 0 ? Math.max(...startedEpochs) - Math.min(...startedEpochs) : 0,
      ladder: checks.find((check) => check.levels.length > 0)?.levels ?? [],
    });
    const hidden = result.perPlayer.filter((row) => row.hiddenSamples > 0 || row.maxSampleGapMs > 1_000);
    if (hidden.length > 0) log(`capacity browser check: ${hidden.length} page(s) were hidden or their sampler was held up (> 1 s); their stalls may be off`);
    log(
      `capacity browser check: startup p50/p90 ${result.startupMs.p50}/${result.startupMs.p90} ms (${result.playersStarted}/${result.players} started); ` +
        `${result.stalls} stalls (${result.stalledSeconds} s; ${result.waitingEvents} waiting events); fetch p50/p99 ${result.videoFetchMs.p50}/${result.videoFetchMs.p99} ms; ` +
        `${result.steeredSegments} 429s ${JSON.stringify(result.steeredTo)}; ${result.abortedLoads} loads cancelled by the ABR ${JSON.stringify(result.abortedThen)}; ` +
        `buffered ahead at a request p50/max ${result.aheadAtVideoRequestSeconds.p50}/${result.aheadAtVideoRequestSeconds.max} s; rungs ${JSON.stringify(result.rungsPlayed)}`,
    );
    return result;
  } finally {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser.close();
    await pageServer.close();
  }
};

const rungShares = (played: Record<string, number>): string => {
  const total = Object.values(played).reduce((sum, count) => sum + count, 0);
  return (
    Object.entries(played)
      .sort(([a], [b]) => Number.parseInt(a, 10) - Number.parseInt(b, 10))
      .map(([rung, count]) => `${rung} ${Math.round((count / Math.max(1, total)) * 100)} %`)
      .join(', ') || 'none'
  );
};

/** The check's section of the report: one paragraph and a short table. */
export const renderBrowserCheck = (result: BrowserCheckResult): string[] => {
  const outcomes = (counts: Record<string, number>) =>
    Object.entries(counts)
      .map(([where, count]) => `${count} ${where}`)
      .join(', ');
  return [
    `hls.js ${result.hlsJsVersion ?? '?'} (default config, muted autoplay) in Chromium ${result.chromiumVersion}: ${result.playersPerAsset} players on each of ` +
      `${result.assets} fresh asset(s), ${result.players} in all, started together (within ${formatMs(result.startSpreadMs)}), ${result.wallSeconds} s each. ` +
      `A stall is ${result.stallRule}.`,
    table(
      ['Players', 'Startup p50 / p90 (started)', 'First segments in p50', 'Stalls (time, worst player)', '`waiting` after start', 'Video fetch p50 / p99', 'Rungs played', '429s (then fetched from)', 'Loads cancelled by the ABR (then from)', 'Buffered ahead at a request p50 / max', 'HTTP errors (fatal)', 'Reached the end'],
      [
        [
          result.players,
          `${formatMs(result.startupMs.p50)} / ${formatMs(result.startupMs.p90)} (${result.playersStarted}/${result.players})`,
          formatMs(result.firstSegmentMs.p50),
          `${result.stalls} (${result.stalledSeconds} s, worst ${round(result.worstStalledShare * 100, 1)} %)`,
          `${result.waitingEvents} (${result.waitingSeconds} s)`,
          `${formatMs(result.videoFetchMs.p50)} / ${formatMs(result.videoFetchMs.p99)}`,
          rungShares(result.rungsPlayed),
          result.steeredSegments > 0 ? `${result.steeredSegments} (${outcomes(result.steeredTo)})` : '0',
          result.abortedLoads > 0 ? `${result.abortedLoads} (${outcomes(result.abortedThen)})` : '0',
          `${result.aheadAtVideoRequestSeconds.p50 ?? 'n/a'} s / ${result.aheadAtVideoRequestSeconds.max ?? 'n/a'} s`,
          `${result.httpErrors} (${result.fatalErrors})`,
          `${result.playersReachedEnd}/${result.players}`,
        ],
      ],
    ),
  ];
};
