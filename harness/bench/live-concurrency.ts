import { createLiveStream, multivariantUrlOf, redactKeys, rtmpUrlOf, waitForNoPackagers, type BenchLiveStream } from './live-api';
import type { LiveInput } from './live-inputs';
import { PlaylistWatcher, waitForPlayable, type Playable } from './live-playlists';
import { cpuSecondsOf, packagerPidOf, serverNodePids, startLivePublisher, type LivePublisher } from './live-processes';
import type { KeyframeProcess } from '../keyframe-process';
import type { AccessToken } from './bench-server';
import { phaseMeter } from './machine';
import { median, round, sleep } from '../stats';

// How many streams one box holds in real time: N publishers at once (N = 1, 2, …), each step
// `stepSeconds` long. A step holds when, over its last `windowSeconds`, every variant playlist of
// every stream listed at least `minRate` media seconds per wall-clock second (read every 500 ms,
// rate fitted over the segments first listed in the window), every publisher could send at that
// rate too (a server too busy to read its sockets slows the publishers down), and the server logged
// no packager failure or RTMP reader falling behind (the ingest disconnects a reader that lags).

const POLL_MS = 500;
const LAG_WARNINGS = /rtmp reader fell behind|live packager (ended|stopped) with an error/g;

export type LiveConcurrencyStreamResult = {
  playableMs: number | null;
  /** Slowest variant of this stream. */
  listedRate: number | null;
  newExtinfPerSecond: number | null;
  publisherRate: number | null;
  packagerCpuPerSecond: number | null;
};

export type LiveConcurrencyStep = {
  streams: number;
  holds: boolean;
  /** Why it did not hold (empty when it held). */
  reasons: string[];
  minListedRate: number | null;
  minNewExtinfPerSecond: number | null;
  minPublisherRate: number | null;
  medianPlayableMs: number | null;
  /** All packagers together, CPU seconds per second. */
  packagerCpuPerSecond: number | null;
  serverCpuPerSecond: number | null;
  machineBusyPercent: number | null;
  otherWorkPercent: number | null;
  lagWarnings: number;
  perStream: LiveConcurrencyStreamResult[];
};

export type LiveConcurrencyResult = {
  input: string;
  stepSeconds: number;
  windowSeconds: number;
  minRate: number;
  steps: LiveConcurrencyStep[];
  /** The largest N that held (0: not even one). */
  heldUpTo: number;
  stoppedBecause: string;
};

const publisherRate = (publisher: LivePublisher, fromMs: number, toMs: number): number | null => {
  const inWindow = publisher.progress.filter((sample) => sample.atMs >= fromMs && sample.atMs <= toMs);
  const first = inWindow[0];
  const last = inWindow.at(-1);
  if (!first || !last || last.atMs - first.atMs < 5_000) return null;
  return round((last.outSeconds - first.outSeconds) / ((last.atMs - first.atMs) / 1000), 3);
};

const countLagWarnings = (server: KeyframeProcess): number => server.logs().match(LAG_WARNINGS)?.length ?? 0;

const minOf = (values: Array<number | null>): number | null => {
  const known = values.filter((value): value is number => value !== null);
  return known.length === values.length && known.length > 0 ? Math.min(...known) : null;
};

const runStep = async ({
  server,
  token,
  rtmpPort,
  input,
  streams: count,
  stepSeconds,
  windowSeconds,
  minRate,
}: {
  server: KeyframeProcess;
  token: AccessToken;
  rtmpPort: number;
  input: LiveInput;
  streams: number;
  stepSeconds: number;
  windowSeconds: number;
  minRate: number;
}): Promise<LiveConcurrencyStep> => {
  const serverPid = server.pid;
  if (serverPid === undefined) throw new Error('the server has no pid');
  const streams: BenchLiveStream[] = [];
  for (let index = 0; index < count; index += 1) streams.push(await createLiveStream(server.baseUrl, token, 'standard'));
  const warningsBefore = countLagWarnings(server);
  const startedAtMs = Date.now();
  const publishers = streams.map((stream) => startLivePublisher({ inputPath: input.path, ingestUrl: rtmpUrlOf(rtmpPort, stream) }));
  let watcher: PlaylistWatcher | null = null;
  try {
    const playables = await Promise.all(
      streams.map((stream, index) =>
        waitForPlayable({ multivariantUrl: multivariantUrlOf(server.baseUrl, stream), startedAtMs: publishers[index]?.startedAtMs ?? startedAtMs, timeoutMs: 30_000 }).catch(
          () => null,
        ),
      ),
    );
    const sourcesOf = (playable: Playable | null) => playable?.variantUrls ?? [];
    watcher = PlaylistWatcher.http(playables.flatMap(sourcesOf), POLL_MS);
    await sleep(Math.max(0, startedAtMs + (stepSeconds - windowSeconds) * 1000 - Date.now()));
    const packagerPids = streams.map((stream) => packagerPidOf(serverPid, stream.streamKey));
    const nodePids = serverNodePids(serverPid);
    const cpu = () => ({
      packagers: packagerPids.map((pid) => (pid === null ? null : cpuSecondsOf(pid))),
      server: nodePids.reduce((sum, pid) => sum + (cpuSecondsOf(pid) ?? 0), 0),
    });
    const meter = phaseMeter(`live ${count} × ${input.label}`);
    const windowStart = Date.now();
    const before = cpu();
    await sleep(Math.max(0, startedAtMs + stepSeconds * 1000 - Date.now()));
    const after = cpu();
    const windowEnd = Date.now();
    const machine = meter.stop();
    const wall = (windowEnd - windowStart) / 1000;
    const activeWatcher = watcher;
    const perStream: LiveConcurrencyStreamResult[] = streams.map((_, index) => {
      const playable = playables[index] ?? null;
      const growths = sourcesOf(playable).map((source) => activeWatcher.growth(source, windowStart, windowEnd));
      const start = before.packagers[index];
      const end = after.packagers[index];
      const publisher = publishers[index];
      return {
        playableMs: playable?.playableMs ?? null,
        listedRate: growths.length > 0 ? minOf(growths.map((growth) => growth.fittedRate)) : null,
        newExtinfPerSecond: growths.length > 0 ? minOf(growths.map((growth) => growth.newExtinfPerSecond)) : null,
        publisherRate: publisher ? publisherRate(publisher, windowStart, windowEnd) : null,
        packagerCpuPerSecond: start === null || start === undefined || end === null || end === undefined ? null : round((end - start) / wall, 3),
      };
    });
    const lagWarnings = countLagWarnings(server) - warningsBefore;
    const reasons: string[] = [];
    const unplayable = perStream.filter((stream) => stream.playableMs === null).length;
    if (unplayable > 0) reasons.push(`${unplayable} stream(s) never became playable`);
    const slow = perStream.filter((stream) => stream.listedRate === null || stream.listedRate < minRate);
    if (slow.length > 0) reasons.push(`${slow.length} stream(s) listed less than ${minRate} s of media per second (${slow.map((stream) => stream.listedRate ?? 'n/a').join(', ')})`);
    const slowPublishers = perStream.filter((stream) => stream.publisherRate !== null && stream.publisherRate < minRate);
    if (slowPublishers.length > 0) reasons.push(`${slowPublishers.length} publisher(s) were slowed down (${slowPublishers.map((stream) => stream.publisherRate).join(', ')}× real time)`);
    if (lagWarnings > 0) reasons.push(`the server logged ${lagWarnings} packager failure(s) or lagging reader(s)`);
    const packagerRates = perStream.map((stream) => stream.packagerCpuPerSecond);
    return {
      streams: count,
      holds: reasons.length === 0,
      reasons,
      minListedRate: minOf(perStream.map((stream) => stream.listedRate)),
      minNewExtinfPerSecond: minOf(perStream.map((stream) => stream.newExtinfPerSecond)),
      minPublisherRate: minOf(perStream.map((stream) => stream.publisherRate)),
      medianPlayableMs: median(perStream.map((stream) => stream.playableMs).filter((value): value is number => value !== null)),
      packagerCpuPerSecond: packagerRates.every((rate) => rate !== null) ? round(packagerRates.reduce((sum: number, rate) => sum + (rate ?? 0), 0), 3) : null,
      serverCpuPerSecond: round((after.server - before.server) / wall, 3),
      machineBusyPercent: machine.machineBusyPercent,
      otherWorkPercent: machine.otherPercent,
      lagWarnings,
      perStream,
    };
  } catch (error) {
    throw new Error(redactKeys((error as Error).message, streams));
  } finally {
    await watcher?.stop();
    await Promise.all(publishers.map((publisher) => publisher.stop()));
    await waitForNoPackagers(serverPid);
  }
};

export const measureLiveConcurrency = async ({
  server,
  token,
  rtmpPort,
  input,
  maxStreams,
  stepSeconds,
  windowSeconds,
  minRate,
  deadlineMs,
  log,
}: {
  server: KeyframeProcess;
  token: AccessToken;
  rtmpPort: number;
  input: LiveInput;
  maxStreams: number;
  stepSeconds: number;
  windowSeconds: number;
  minRate: number;
  /** Date.now() after which no further step starts (keeps the whole part within its time budget). */
  deadlineMs: number;
  log: (line: string) => void;
}): Promise<LiveConcurrencyResult> => {
  const steps: LiveConcurrencyStep[] = [];
  let stoppedBecause = `reached ${maxStreams} streams`;
  for (let streams = 1; streams <= maxStreams; streams += 1) {
    if (Date.now() + stepSeconds * 1000 > deadlineMs) {
      stoppedBecause = `time budget: the next step (${streams} streams) would end after the live part's deadline`;
      break;
    }
    const step = await runStep({ server, token, rtmpPort, input, streams, stepSeconds, windowSeconds, minRate });
    steps.push(step);
    log(
      `live concurrency ${streams} × ${input.label}: ${step.holds ? 'holds' : `does not hold (${step.reasons.join('; ')})`}; ` +
        `slowest listed ${step.minListedRate}×, packagers ${step.packagerCpuPerSecond} + server ${step.serverCpuPerSecond} CPU-s/s, machine ${step.machineBusyPercent} % busy (other work ${step.otherWorkPercent} %)`,
    );
    if (!step.holds) {
      stoppedBecause = `${streams} streams did not hold`;
      break;
    }
  }
  const held = steps.filter((step) => step.holds).map((step) => step.streams);
  return { input: input.label, stepSeconds, windowSeconds, minRate, steps, heldUpTo: held.length > 0 ? Math.max(...held) : 0, stoppedBecause };
};
