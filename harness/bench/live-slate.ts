import { chromium, type Browser, type Page } from '@playwright/test';
import { LATENCY_PROFILES } from '../../lib/services/live/latency-profiles';
import type { AccessToken } from './bench-server';
import { completeLiveStream, createLiveStream, multivariantUrlOf, redactKeys, rtmpUrlOf, waitForNoPackagers, type BenchLiveStream, type LatencyMode } from './live-api';
import type { LiveInput } from './live-inputs';
import { openPlayerPage, playLive, type LivePlayback } from './live-latency';
import { PlaylistWatcher, waitForPlayable, type SeenSegment } from './live-playlists';
import { cpuSecondsOf, startLivePublisher, type LivePublisher } from './live-processes';
import { chromiumLaunchOptions } from '../chromium';
import type { KeyframeProcess } from '../keyframe-process';
import { startPlayerPageServer, type PlayerReport } from '../player-page';
import { descendantsOf, isFfmpeg } from '../processes';
import { errorMessage, median, round, sleep } from '../stats';

// Reconnect slates: a publisher that crashes (SIGKILL) and comes back `gapSeconds` later, inside
// its stream's 30 s reconnect window, while one hls.js viewer (default configuration, the player
// page of the latency runs) plays throughout. Three streams, one after the other on the same
// server and input:
//  - standard latency without a slate, the control: what a viewer got before slates (the playlist
//    stops growing, the player runs dry);
//  - the same standard stream with use_slate_for_standard_latency: the slate is the one
//    difference, so these two are the fair side by side (reduced latency cannot go without a
//    slate once it has a reconnect window);
//  - reduced latency with its default slate: the case slates are for, with less buffer (1 s
//    segments, about 3 s behind the edge) to bridge the slate's start with.
// Per stream: stalls after the first frame and how long they lasted, fatal errors, kill → the
// first slate segment listed in the source media playlist (polled), republish → the first segment
// after the gap's last discontinuity, and the CPU of the ffmpeg drawing the slate.

const RECONNECT_WINDOW_SECONDS = 30;
const PLAYLIST_POLL_MS = 100;
const SLATE_CPU_POLL_MS = 200;
// The latency read after the return, once hls.js has settled on where it plays the resumed media.
const LATENCY_AFTER_RETURN_WINDOW_SECONDS = 5;

export type SlateCaseSpec = { label: string; latencyMode: LatencyMode; useSlateForStandardLatency: boolean };

export const SLATE_CASES: SlateCaseSpec[] = [
  { label: 'standard, no slate (control)', latencyMode: 'standard', useSlateForStandardLatency: false },
  { label: 'standard + slate', latencyMode: 'standard', useSlateForStandardLatency: true },
  { label: 'reduced (slate)', latencyMode: 'reduced', useSlateForStandardLatency: false },
];

/** The server's rule (live-runtime.ts showsSlates) for a stream with a reconnect window. */
export const showsSlate = (spec: SlateCaseSpec): boolean => spec.latencyMode !== 'standard' || spec.useSlateForStandardLatency;

export type LiveSlateStall = {
  /** When the player stopped, in seconds from the kill (negative: before it). */
  fromKillSeconds: number;
  /** Until the next `playing`, or the end of playback. */
  seconds: number;
  /** How far currentTime jumped meanwhile: the hole in the buffer hls.js seeked over (or its jump to the live edge). */
  skippedSeconds: number;
};

export type LiveSlateCpu = {
  /** Kill → the slate's ffmpeg first seen among the server's processes (polled every 200 ms). */
  killToProcessMs: number;
  /** CPU-s per second from its first to its last sighting before the republish. */
  cpuPerSecond: number | null;
  /** Its CPU seconds from its start to its last sighting (start-up included). */
  cpuSeconds: number | null;
  seenSeconds: number;
};

export type LiveSlateMeasurement = {
  playback: LivePlayback;
  stallTimeline: LiveSlateStall[];
  stalledSeconds: number;
  /** Kill → republish as it happened. */
  gapMs: number;
  /** Kill → the first segment after a new discontinuity listed while the publisher was away. */
  killToSlateListedMs: number | null;
  /** Media seconds listed after that discontinuity (the slate's EXTINF sum). */
  slateListedSeconds: number;
  /** Republish → the first segment after the discontinuity that follows the gap. */
  republishToResumedListedMs: number | null;
  playedAfterRepublishSeconds: number;
  /** Glass-to-glass (see live-latency.ts), median before the kill and over the last 5 s of playback. */
  latencyBeforeKillSeconds: number | null;
  latencyAfterReturnSeconds: number | null;
  slateCpu: LiveSlateCpu | null;
};

export type LiveSlateCase = {
  label: string;
  latencyMode: LatencyMode;
  useSlateForStandardLatency: boolean;
  slate: boolean;
  segmentSeconds: number;
  measured: LiveSlateMeasurement | null;
  error: string | null;
};

export type LiveSlateResult = {
  reconnectWindowSeconds: number;
  joinAfterSeconds: number;
  playBeforeKillSeconds: number;
  gapSeconds: number;
  playAfterReturnSeconds: number;
  cases: LiveSlateCase[];
};

/** The server's ffmpeg drawing a slate: silence from anullsrc, the picture paced by the realtime filter. */
const slatePidOf = (serverPid: number): number | null =>
  descendantsOf(serverPid).find((entry) => isFfmpeg(entry) && entry.argv.some((arg) => arg.startsWith('anullsrc')) && entry.argv.some((arg) => arg.includes('realtime')))?.pid ?? null;

// Polled rather than read twice: the slate's ffmpeg starts some time after the kill and is gone
// once the publisher is back, so its first and last sightings bound the window.
const watchSlateCpu = (serverPid: number, killedAtMs: number): { stop: () => Promise<LiveSlateCpu | null> } => {
  const sightings: Array<{ pid: number; atMs: number; cpu: number }> = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const pid = sightings[0]?.pid ?? slatePidOf(serverPid);
      const cpu = pid === null ? null : cpuSecondsOf(pid);
      if (pid !== null && cpu !== null) sightings.push({ pid, atMs: Date.now(), cpu });
      await sleep(SLATE_CPU_POLL_MS);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      const first = sightings[0];
      const last = sightings.at(-1);
      if (!first || !last) return null;
      const seenSeconds = (last.atMs - first.atMs) / 1000;
      return {
        killToProcessMs: first.atMs - killedAtMs,
        cpuPerSecond: seenSeconds > 0 ? round((last.cpu - first.cpu) / seenSeconds, 3) : null,
        cpuSeconds: round(last.cpu, 2),
        seenSeconds: round(seenSeconds, 1),
      };
    },
  };
};

/** Wall-clock time of the first frame (the page's `playing`), once there is one. */
const waitForFirstFrame = async (page: Page, timeoutMs: number): Promise<number> => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const firstPlayingAtMs = await page.evaluate(() => {
      const report = (window as unknown as { report: PlayerReport }).report;
      return report.firstPlayingAt === null ? null : performance.timeOrigin + report.firstPlayingAt;
    });
    if (firstPlayingAtMs !== null) return firstPlayingAtMs;
    await sleep(100);
  }
  throw new Error(`no frame played within ${timeoutMs} ms`);
};

// A stall runs from a `waiting` after the first frame to the next `playing` (the page's events,
// stamped with performance.now() and the playhead); one still open when playback ends lasts until then.
const readStalls = async (page: Page, killedAtMs: number): Promise<{ stalls: LiveSlateStall[]; endedAtMs: number }> => {
  const { events, timeOrigin, now, currentTime } = await page.evaluate(() => ({
    events: (window as unknown as { report: PlayerReport }).report.events,
    timeOrigin: performance.timeOrigin,
    now: performance.now(),
    currentTime: (document.getElementById('video') as HTMLVideoElement).currentTime,
  }));
  const stalls: LiveSlateStall[] = [];
  type Moment = { t: number; currentTime: number };
  const close = (from: Moment, to: Moment) =>
    stalls.push({
      fromKillSeconds: round((timeOrigin + from.t - killedAtMs) / 1000, 2),
      seconds: round((to.t - from.t) / 1000, 2),
      skippedSeconds: round(to.currentTime - from.currentTime, 3),
    });
  let played = false;
  let waitingSince: Moment | null = null;
  for (const event of events) {
    const moment = { t: Number(event.t), currentTime: Number(event.currentTime) };
    if (event.type === 'playing') {
      if (waitingSince !== null) close(waitingSince, moment);
      played = true;
      waitingSince = null;
    } else if (event.type === 'waiting' && played) waitingSince ??= moment;
  }
  if (waitingSince !== null) close(waitingSince, { t: now, currentTime });
  return { stalls, endedAtMs: timeOrigin + now };
};

// The gap in the playlist: the slate follows the content after one discontinuity, the publisher's
// media after the next (without a slate, directly after the first).
const gapListing = (segments: SeenSegment[], killedAtMs: number, republishedAtMs: number) => {
  const maxDiscontinuity = (listed: SeenSegment[], floor: number) => Math.max(floor, ...listed.map((segment) => segment.discontinuity));
  const atKill = maxDiscontinuity(segments.filter((segment) => segment.seenAtMs <= killedAtMs), 0);
  const atRepublish = maxDiscontinuity(segments.filter((segment) => segment.seenAtMs <= republishedAtMs), atKill);
  const slate = segments.filter((segment) => segment.discontinuity > atKill && segment.discontinuity <= atRepublish);
  const resumed = segments.find((segment) => segment.discontinuity > atRepublish);
  return {
    killToSlateListedMs: slate[0] ? slate[0].seenAtMs - killedAtMs : null,
    slateListedSeconds: round(slate.reduce((sum, segment) => sum + segment.durationSeconds, 0), 2),
    republishToResumedListedMs: resumed ? resumed.seenAtMs - republishedAtMs : null,
  };
};

const latencyMedian = (playback: LivePlayback, from: number, to: number): number | null =>
  median(playback.samples.filter((sample) => sample.atSeconds >= from && sample.atSeconds <= to && sample.latencySeconds !== null).map((sample) => sample.latencySeconds as number));

type CaseTiming = { joinAfterSeconds: number; playBeforeKillSeconds: number; gapSeconds: number; playAfterReturnSeconds: number };

const measureCase = async ({
  server,
  token,
  rtmpPort,
  input,
  browser,
  pageOrigin,
  spec,
  timing,
}: {
  server: KeyframeProcess;
  token: AccessToken;
  rtmpPort: number;
  input: LiveInput;
  browser: Browser;
  pageOrigin: string;
  spec: SlateCaseSpec;
  timing: CaseTiming;
}): Promise<LiveSlateMeasurement> => {
  const { joinAfterSeconds, playBeforeKillSeconds, gapSeconds, playAfterReturnSeconds } = timing;
  if (server.pid === undefined) throw new Error('the server has no pid to find its slate ffmpeg by');
  const serverPid = server.pid;
  const stream: BenchLiveStream = await createLiveStream(server.baseUrl, token, spec.latencyMode, {
    reconnectWindow: RECONNECT_WINDOW_SECONDS,
    useSlateForStandardLatency: spec.useSlateForStandardLatency,
  });
  const ingestUrl = rtmpUrlOf(rtmpPort, stream);
  const multivariantUrl = multivariantUrlOf(server.baseUrl, stream);
  const player = await openPlayerPage(browser, pageOrigin);
  const publishers: LivePublisher[] = [startLivePublisher({ inputPath: input.path, ingestUrl })];
  let watcher: PlaylistWatcher | null = null;
  try {
    const [first] = publishers as [LivePublisher];
    const playable = await waitForPlayable({ multivariantUrl, startedAtMs: first.startedAtMs, timeoutMs: 30_000 });
    const source = playable.variantUrls.find((url) => url.endsWith('/source.m3u8')) ?? playable.variantUrls[0] ?? '';
    watcher = PlaylistWatcher.http([source], PLAYLIST_POLL_MS);
    await sleep(Math.max(0, first.startedAtMs + joinAfterSeconds * 1000 - Date.now()));
    const playing = playLive({ page: player.page, src: multivariantUrl, seconds: playBeforeKillSeconds + gapSeconds + playAfterReturnSeconds, settleSeconds: 1 });
    const gap = async () => {
      const firstFrameAtMs = await waitForFirstFrame(player.page, 30_000);
      await sleep(Math.max(0, firstFrameAtMs + playBeforeKillSeconds * 1000 - Date.now()));
      const killedAtMs = Date.now();
      await first.crash();
      const slateCpu = watchSlateCpu(serverPid, killedAtMs);
      await sleep(Math.max(0, killedAtMs + gapSeconds * 1000 - Date.now()));
      // Read before the republish: the reconnect stops the slate.
      const cpu = await slateCpu.stop();
      const second = startLivePublisher({ inputPath: input.path, ingestUrl });
      publishers.push(second);
      return { firstFrameAtMs, killedAtMs, republishedAtMs: second.startedAtMs, cpu };
    };
    const [playback, gapTimes] = await Promise.all([playing, gap()]);
    const { stalls, endedAtMs } = await readStalls(player.page, gapTimes.killedAtMs);
    // Sample times count from the player's first frame, as the kill does.
    const killAtSampleSeconds = (gapTimes.killedAtMs - gapTimes.firstFrameAtMs) / 1000;
    return {
      playback,
      stallTimeline: stalls,
      stalledSeconds: round(stalls.reduce((sum, stall) => sum + stall.seconds, 0), 2),
      gapMs: gapTimes.republishedAtMs - gapTimes.killedAtMs,
      ...gapListing(watcher.segmentsOf(source), gapTimes.killedAtMs, gapTimes.republishedAtMs),
      playedAfterRepublishSeconds: round((endedAtMs - gapTimes.republishedAtMs) / 1000, 1),
      latencyBeforeKillSeconds: latencyMedian(playback, 0, killAtSampleSeconds),
      latencyAfterReturnSeconds: latencyMedian(playback, playback.playedSeconds - LATENCY_AFTER_RETURN_WINDOW_SECONDS, playback.playedSeconds),
      slateCpu: gapTimes.cpu,
    };
  } catch (error) {
    throw new Error(redactKeys(`${errorMessage(error)}; publisher: ${publishers.at(-1)?.stderr().slice(-300)}`, [stream]));
  } finally {
    await watcher?.stop();
    // Ended through the API first, so that the last publisher's leaving does not start a slate.
    await completeLiveStream(server.baseUrl, token, stream);
    for (const publisher of publishers) await publisher.stop();
    await player.close();
    await waitForNoPackagers(server.pid);
  }
};

export const measureLiveSlate = async ({
  server,
  token,
  rtmpPort,
  input,
  repoRoot,
  // Long enough for hls.js to start three standard target durations (6 s) behind the edge.
  joinAfterSeconds = 10,
  playBeforeKillSeconds = 10,
  gapSeconds = 10,
  playAfterReturnSeconds = 15,
  log,
}: {
  server: KeyframeProcess;
  token: AccessToken;
  rtmpPort: number;
  input: LiveInput;
  repoRoot: string;
  joinAfterSeconds?: number;
  playBeforeKillSeconds?: number;
  gapSeconds?: number;
  playAfterReturnSeconds?: number;
  log: (line: string) => void;
}): Promise<LiveSlateResult> => {
  const timing = { joinAfterSeconds, playBeforeKillSeconds, gapSeconds, playAfterReturnSeconds };
  const pages = await startPlayerPageServer(repoRoot);
  const browser = await chromium.launch(chromiumLaunchOptions);
  const cases: LiveSlateCase[] = [];
  try {
    for (const spec of SLATE_CASES) {
      log(`live slate: ${spec.label}: hls.js plays ${playBeforeKillSeconds} s, the publisher is killed and back ${gapSeconds} s later, ${playAfterReturnSeconds} s more…`);
      const described = { label: spec.label, latencyMode: spec.latencyMode, useSlateForStandardLatency: spec.useSlateForStandardLatency, slate: showsSlate(spec), segmentSeconds: LATENCY_PROFILES[spec.latencyMode].segmentSeconds };
      try {
        const measured = await measureCase({ server, token, rtmpPort, input, browser, pageOrigin: pages.origin, spec, timing });
        cases.push({ ...described, measured, error: null });
        log(
          `live slate: ${spec.label}: ${measured.playback.stalls} stall(s), ${measured.stalledSeconds} s stalled ` +
            `(${measured.stallTimeline.map((stall) => `${stall.seconds} s at ${stall.fromKillSeconds} s from the kill, ${stall.skippedSeconds} s skipped`).join(', ') || 'none'}); ` +
            `kill → slate listed ${measured.killToSlateListedMs} ms (${measured.slateListedSeconds} s of slate), republish → resumed listed ${measured.republishToResumedListedMs} ms; ` +
            `latency ${measured.latencyBeforeKillSeconds} s before, ${measured.latencyAfterReturnSeconds} s after; slate ffmpeg ${measured.slateCpu?.cpuPerSecond ?? 'n/a'} CPU-s/s`,
        );
      } catch (error) {
        log(`live slate: ${spec.label} failed: ${errorMessage(error)}`);
        cases.push({ ...described, measured: null, error: errorMessage(error) });
      }
    }
  } finally {
    await browser.close();
    await pages.close();
  }
  return { reconnectWindowSeconds: RECONNECT_WINDOW_SECONDS, ...timing, cases };
};
