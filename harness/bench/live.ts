import { readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium } from '@playwright/test';
import { LATENCY_PROFILES } from '../../lib/services/live/latency-profiles';
import { createLiveStream, multivariantUrlOf, redactKeys, rtmpUrlOf, srtUrlOf, waitForNoPackagers, type BenchLiveStream, type LatencyMode } from './live-api';
import { measureLiveConcurrency, type LiveConcurrencyResult } from './live-concurrency';
import { measureLiveCpu, measureServerIdleCpu, type LiveCpuComparison } from './live-cpu';
import { ensureLiveInput, LIVE_1080P, LIVE_720P, type LiveInput } from './live-inputs';
import { openPlayerPage, playLive, type LivePlayback } from './live-latency';
import { checkProgramDateTime, type ProgramDateTimeCheck } from './live-pdt';
import { measureLiveSimulcast, type LiveSimulcastResult } from './live-simulcast';
import { measureLiveSlate, type LiveSlateResult } from './live-slate';
import { measureLiveCaptions, type LiveCaptionsResult } from './live-captions';
import { measureLiveHostile, type LiveHostileResult } from './live-hostile';
import { waitForPlayable } from './live-playlists';
import { serverNodePids, startLivePublisher } from './live-processes';
import { freePort } from '../free-port.mjs';
import type { KeyframeProcess } from '../keyframe-process';
import { startBenchServer, type AccessToken } from './bench-server';
import { chromiumLaunchOptions } from '../chromium';
import { startPlayerPageServer } from '../player-page';
import { phaseMeter } from './machine';
import { errorMessage, median, round, sleep } from '../stats';

// Live streaming (issue 16's targets), on one fresh server with RTMP ingest, in one run:
//  1. glass-to-glass latency and stalls per latency mode and ingest (RTMP, then SRT side by side):
//     a 720p30 publisher, hls.js (default configuration) in Chromium for 60 s (live-latency.ts),
//     with an independent check of the program date times the latency is computed from
//     (live-pdt.ts);
//  2. publisher connect → playable playlist per mode and ingest;
//  3. simulcast: publisher spawn → first bytes at two local RTMP receivers, CPU per restream
//     (live-simulcast.ts);
//  4. reconnect slates: stalls in hls.js across a 10 s publisher gap, with and without a slate
//     (live-slate.ts);
//  5. generated live captions: cue latency against when the words were said, the live
//     transcript's word error rate and the recogniser's CPU, on published speech (live-captions.ts);
//  6. CPU per 720p30 and 1080p30 stream against plain ffmpeg writing the same ladder (live-cpu.ts);
//  7. how many 720p30 (then 1080p30) streams the box holds in real time (live-concurrency.ts);
//  8. hostile input: refused publishers, junk on the RTMP port, malformed target URLs, bad
//     simulcast targets and a slate URL that is not an image, each answered clearly, while a
//     watched broadcast and its good simulcast target go on undisturbed (live-hostile.ts). Last,
//     so that whatever a hostile input might leave behind cannot weigh on the cases that time.
// `cases` picks which of them run (1 and 2 are one case, latency).

// The server's packager warnings can carry ffmpeg's stderr, which names the input URL and with it
// the stream key: the results keep none. A key the server already redacted (<stream key>) is left as is.
const redactIngestUrls = (line: string): string =>
  line.replace(/(rtmps?:\/\/[^\s"/]+\/[^\s"/]+\/)(?!<stream key>)[^\s"\\:]+/g, '$1<stream key>').replace(/(srt:\/\/[^\s"?]+\?)[^\s"]+/g, '$1<streamid and passphrase>');

export const LIVE_MODES: readonly LatencyMode[] = ['standard', 'reduced', 'low'];
export const LIVE_CASES = ['latency', 'simulcast', 'slate', 'captions', 'cpu', 'concurrency', 'hostile'] as const;
export type LiveCase = (typeof LIVE_CASES)[number];
/** How the publisher connects: RTMP, and SRT (through the gateway's relay into the same RTMP session). */
export type LiveIngest = 'rtmp' | 'srt';
export const LIVE_INGESTS: readonly LiveIngest[] = ['rtmp', 'srt'];
/** Issue 16's glass-to-glass targets. */
export const LIVE_LATENCY_TARGET_SECONDS: Record<LatencyMode, number> = { standard: 12, reduced: 6, low: 3 };
/** Issue 16: connect → playable within two segment durations plus one second. */
export const livePlayableTargetMs = (mode: LatencyMode): number => (2 * LATENCY_PROFILES[mode].segmentSeconds + 1) * 1000;

export type LiveOptions = {
  cases: LiveCase[];
  /** The latency modes the latency case measures (each over RTMP and SRT). */
  modes: LatencyMode[];
  playbackSeconds: number;
  settleSeconds: number;
  /** The viewer joins this long after the publisher's spawn, i.e. a broadcast already running. */
  joinAfterSeconds: number;
  playableSamples: number;
  cpuRunSeconds: number;
  cpuWindowSeconds: number;
  stepSeconds: number;
  stepWindowSeconds: number;
  maxStreams720: number;
  maxStreams1080: number;
  minRate: number;
  /** The whole part's budget; the concurrency steps stop starting once it would be exceeded. */
  budgetSeconds: number;
};

export const DEFAULT_LIVE_OPTIONS: LiveOptions = {
  cases: [...LIVE_CASES],
  modes: [...LIVE_MODES],
  playbackSeconds: 60,
  settleSeconds: 10,
  // hls.js starts three target durations behind the edge only once the playlist is that long; a
  // viewer joining earlier starts at the first segment and stays as far behind as the broadcast
  // was old, since default hls.js never speeds up to catch up. 15 s covers 3 × 2 s + the edge.
  joinAfterSeconds: 15,
  playableSamples: 3,
  cpuRunSeconds: 40,
  cpuWindowSeconds: 30,
  stepSeconds: 40,
  stepWindowSeconds: 30,
  maxStreams720: 6,
  maxStreams1080: 3,
  minRate: 0.97,
  budgetSeconds: 22 * 60,
};

export type LivePlayableSample = {
  multivariantMs: number;
  playableMs: number;
  /** From when the publisher sent media time 0 (after its own start-up and RTMP connect); null without its progress reports. */
  fromMediaStartMs: number | null;
};

export type LiveModeResult = {
  mode: LatencyMode;
  ingest: LiveIngest;
  segmentSeconds: number;
  partSeconds: number | null;
  latencyTargetSeconds: number;
  playableTargetMs: number;
  playable: LivePlayableSample[];
  medianPlayableMs: number | null;
  medianMultivariantMs: number | null;
  playback: LivePlayback | null;
  playbackError: string | null;
  /** Both cores while the viewer played (100 % = both busy), and the share other work took. */
  playbackMachine: { busyPercent: number | null; otherWorkPercent: number | null } | null;
  /**
   * The played publish's median latency against the publisher's own clock: the measured median plus
   * that publish's program-date-time error (see live-pdt.ts), i.e. what the viewer would see if the
   * dates were exact.
   */
  publisherClockLatencySeconds: number | null;
  programDateTime: ProgramDateTimeCheck[];
};

type Outcome<T> = { status: 'ok'; value: T } | { status: 'error'; error: string } | { status: 'skipped'; reason: string };

export type LiveResult = {
  hlsJsVersion: string;
  options: LiveOptions;
  server: { env: Record<string, string>; playbackWorkers: number; idleCpuPerSecond: number | null };
  inputs: LiveInput[];
  modes: LiveModeResult[];
  simulcast: Outcome<LiveSimulcastResult>;
  slate: Outcome<LiveSlateResult>;
  captions: Outcome<LiveCaptionsResult>;
  cpu: Array<Outcome<LiveCpuComparison> & { input: string }>;
  concurrency: Array<Outcome<LiveConcurrencyResult> & { input: string }>;
  hostile: Outcome<LiveHostileResult>;
};

const outcome = async <T>(run: () => Promise<T>, log: (line: string) => void, label: string): Promise<Outcome<T>> => {
  try {
    return { status: 'ok', value: await run() };
  } catch (error) {
    log(`${label} failed: ${errorMessage(error)}`);
    return { status: 'error', error: errorMessage(error) };
  }
};

/** One publish: spawn → playable, the first segment's date checked, then (optionally) a viewer. */
type IngestPorts = { rtmp: number; srt: number };

const publishOnce = async ({
  server,
  ports,
  ingest,
  stream,
  input,
  watch,
}: {
  server: KeyframeProcess;
  ports: IngestPorts;
  ingest: LiveIngest;
  stream: BenchLiveStream;
  input: LiveInput;
  watch: ((multivariantUrl: string, spawnedAtMs: number) => Promise<LivePlayback>) | null;
}): Promise<{ playable: LivePlayableSample; pdt: ProgramDateTimeCheck; playback: LivePlayback | null }> => {
  const ingestUrl = ingest === 'srt' ? srtUrlOf(ports.srt, stream) : rtmpUrlOf(ports.rtmp, stream);
  const publisher = startLivePublisher({ inputPath: input.path, ingestUrl });
  try {
    const multivariantUrl = multivariantUrlOf(server.baseUrl, stream);
    const playable = await waitForPlayable({ multivariantUrl, startedAtMs: publisher.startedAtMs, timeoutMs: 30_000 });
    const source = playable.variantUrls.find((url) => url.endsWith('/source.m3u8')) ?? playable.variantUrls[0] ?? '';
    const pdt = await checkProgramDateTime({ mediaPlaylistUrl: source, spawnedAtMs: publisher.startedAtMs, progress: publisher.progress });
    const playback = watch ? await watch(multivariantUrl, publisher.startedAtMs) : null;
    const fromMediaStartMs = pdt.originMinusSpawnMs === null ? null : playable.playableMs - pdt.originMinusSpawnMs;
    return { playable: { multivariantMs: playable.multivariantMs, playableMs: playable.playableMs, fromMediaStartMs }, pdt, playback };
  } catch (error) {
    throw new Error(redactKeys(`${errorMessage(error)}; publisher: ${publisher.stderr().slice(-300)}`, [stream]));
  } finally {
    await publisher.stop();
    await waitForNoPackagers(server.pid);
  }
};

const measureModes = async ({
  server,
  token,
  ports,
  input,
  options,
  repoRoot,
  log,
}: {
  server: KeyframeProcess;
  token: AccessToken;
  ports: IngestPorts;
  input: LiveInput;
  options: LiveOptions;
  repoRoot: string;
  log: (line: string) => void;
}): Promise<LiveModeResult[]> => {
  // RTMP and SRT of one mode one after the other, so noise falls on both alike.
  const results: LiveModeResult[] = options.modes.flatMap((mode) => LIVE_INGESTS.map((ingest) => ({
    mode,
    ingest,
    segmentSeconds: LATENCY_PROFILES[mode].segmentSeconds,
    partSeconds: LATENCY_PROFILES[mode].lowLatency?.partTargetSeconds ?? null,
    latencyTargetSeconds: LIVE_LATENCY_TARGET_SECONDS[mode],
    playableTargetMs: livePlayableTargetMs(mode),
    playable: [],
    medianPlayableMs: null,
    medianMultivariantMs: null,
    playback: null,
    playbackError: null,
    playbackMachine: null,
    publisherClockLatencySeconds: null,
    programDateTime: [],
  })));
  const pages = await startPlayerPageServer(repoRoot);
  const browser = await chromium.launch(chromiumLaunchOptions);
  try {
    // The first round plays each mode for a minute; the others only time connect → playable.
    for (let pass = 1; pass <= options.playableSamples; pass += 1) {
      for (const result of results) {
        const player = pass === 1 ? await openPlayerPage(browser, pages.origin) : null;
        const watch = player
          ? async (src: string, spawnedAtMs: number) => {
              await sleep(Math.max(0, spawnedAtMs + options.joinAfterSeconds * 1000 - Date.now()));
              const meter = phaseMeter(`live ${result.mode} ${result.ingest} playback`);
              try {
                return await playLive({ page: player.page, src, seconds: options.playbackSeconds, settleSeconds: options.settleSeconds });
              } finally {
                const cpu = meter.stop();
                result.playbackMachine = { busyPercent: cpu.machineBusyPercent, otherWorkPercent: cpu.otherPercent };
              }
            }
          : null;
        if (pass === 1) log(`live latency: ${result.mode} over ${result.ingest}, hls.js joins ${options.joinAfterSeconds} s after the publisher's start and plays for ${options.playbackSeconds} s…`);
        try {
          const stream = await createLiveStream(server.baseUrl, token, result.mode);
          const once = await publishOnce({ server, ports, ingest: result.ingest, stream, input, watch });
          result.playable.push(once.playable);
          result.programDateTime.push(once.pdt);
          if (once.playback) {
            result.playback = once.playback;
            const measured = once.playback.medianLatencySeconds;
            result.publisherClockLatencySeconds = measured === null || once.pdt.errorMs === null ? null : round(measured + once.pdt.errorMs / 1000, 3);
            log(
              `live latency: ${result.mode} over ${result.ingest}: median ${once.playback.medianLatencySeconds} s, p95 ${once.playback.p95LatencySeconds} s ` +
                `(hls.latency ${once.playback.medianHlsLatencySeconds} s, player clock ${once.playback.playbackRate}×), ${once.playback.stalls} stall(s); playable after ${once.playable.playableMs} ms; ` +
                `first segment dated ${once.pdt.pdtMinusSpawnMs} ms after spawn, media 0 sent ${once.pdt.originMinusSpawnMs} ms after spawn, first frame at ${once.pdt.firstFrameMediaSeconds} s: date error ${once.pdt.errorMs} ms; ` +
                `machine ${result.playbackMachine?.busyPercent} % busy, other work ${result.playbackMachine?.otherWorkPercent} %`,
            );
          }
        } catch (error) {
          log(`live ${result.mode} over ${result.ingest} run ${pass} failed: ${errorMessage(error)}`);
          if (pass === 1) result.playbackError = errorMessage(error);
        } finally {
          await player?.close();
        }
      }
    }
  } finally {
    await browser.close();
    await pages.close();
  }
  for (const result of results) {
    result.medianPlayableMs = median(result.playable.map((sample) => sample.playableMs));
    result.medianMultivariantMs = median(result.playable.map((sample) => sample.multivariantMs));
  }
  return results;
};

export const measureLiveOnFreshServer = async ({
  repoRoot,
  workDir,
  options = DEFAULT_LIVE_OPTIONS,
  log,
}: {
  repoRoot: string;
  workDir: string;
  options?: LiveOptions;
  log: (line: string) => void;
}): Promise<{ result: LiveResult; serverLogTail: string[] }> => {
  const startedAt = Date.now();
  const deadlineMs = startedAt + options.budgetSeconds * 1000;
  const runs = (liveCase: LiveCase) => options.cases.includes(liveCase);
  const notRun: Outcome<never> = { status: 'skipped', reason: 'not in --live-cases' };
  const input720 = await ensureLiveInput({ spec: LIVE_720P, workDir, log });
  // Only the CPU and concurrency cases publish 1080p (its first generation takes minutes).
  const input1080 = runs('cpu') || runs('concurrency') ? await ensureLiveInput({ spec: LIVE_1080P, workDir, log }) : null;
  const inputs = input1080 ? [input720, input1080] : [input720];
  const rtmpPort = await freePort();
  const srtPort = await freePort();
  const preset = 'superfast';
  // Room for the concurrency steps (the default of 2 is the production guard this part measures past).
  const env = { RTMP_PORT: String(rtmpPort), SRT_PORT: String(srtPort), LIVE_MAX_STREAMS: String(Math.max(options.maxStreams720, options.maxStreams1080) + 2), LIVE_X264_PRESET: preset };
  log(`live: starting a fresh Keyframe server (${Object.entries(env).map(([key, value]) => `${key}=${value}`).join(' ')})…`);
  const server = await startBenchServer({ env });
  try {
    const token = await server.createToken();
    const modes = runs('latency') ? await measureModes({ server, token, ports: { rtmp: rtmpPort, srt: srtPort }, input: input720, options, repoRoot, log }) : [];
    // What the warmed-up server costs with nothing to do (no broadcast, no request): the floor under its CPU figures below.
    const idleCpuPerSecond = runs('cpu') ? await measureServerIdleCpu(server, 10) : null;
    if (idleCpuPerSecond !== null) log(`live: idle server ${idleCpuPerSecond} CPU-s/s`);
    const simulcast = runs('simulcast') ? await outcome(() => measureLiveSimulcast({ server, token, rtmpPort, input: input720, workDir, log }), log, 'live simulcast') : notRun;
    const slate = runs('slate') ? await outcome(() => measureLiveSlate({ server, token, rtmpPort, input: input720, repoRoot, log }), log, 'live slate') : notRun;
    const captions = runs('captions') ? await outcome(() => measureLiveCaptions({ server, token, rtmpPort, input: input720, workDir, log }), log, 'live captions') : notRun;
    const cpu: LiveResult['cpu'] = [];
    for (const input of runs('cpu') ? inputs : []) {
      const measured = await outcome(
        () =>
          measureLiveCpu({ server, token, rtmpPort, input, preset, runSeconds: options.cpuRunSeconds, windowSeconds: options.cpuWindowSeconds, serverIdleCpuPerSecond: idleCpuPerSecond, log }),
        log,
        `live cpu ${input.label}`,
      );
      cpu.push({ ...measured, input: input.label });
    }
    const concurrency: LiveResult['concurrency'] = [];
    const concurrencySteps = runs('concurrency') && input1080 ? ([[input720, options.maxStreams720], [input1080, options.maxStreams1080]] as const) : [];
    for (const [input, maxStreams] of concurrencySteps) {
      if (Date.now() + options.stepSeconds * 1000 > deadlineMs) {
        concurrency.push({ status: 'skipped', reason: `time budget (${options.budgetSeconds} s for the live part) spent`, input: input.label });
        continue;
      }
      const measured = await outcome(
        () =>
          measureLiveConcurrency({
            server, token, rtmpPort, input, maxStreams,
            stepSeconds: options.stepSeconds, windowSeconds: options.stepWindowSeconds, minRate: options.minRate, deadlineMs, log,
          }),
        log,
        `live concurrency ${input.label}`,
      );
      concurrency.push({ ...measured, input: input.label });
    }
    const hostile = runs('hostile') ? await outcome(() => measureLiveHostile({ server, token, rtmpPort, srtPort, input: input720, workDir, log }), log, 'live hostile') : notRun;
    const hlsJsVersion = (JSON.parse(readFileSync(path.join(repoRoot, 'node_modules', 'hls.js', 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
    log(`live: done in ${round((Date.now() - startedAt) / 1000, 0)} s`);
    return {
      result: { hlsJsVersion, options, server: { env: { ...env, RTMP_PORT: '<free port>', SRT_PORT: '<free port>' }, playbackWorkers: server.pid === undefined ? 0 : serverNodePids(server.pid).length - 1, idleCpuPerSecond }, inputs, modes, simulcast, slate, captions, cpu, concurrency, hostile },
      serverLogTail: server
        .logs()
        .split('\n')
        .filter(Boolean)
        .slice(-30)
        .map(redactIngestUrls),
    };
  } finally {
    await server.dispose();
  }
};
