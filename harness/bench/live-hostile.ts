import path from 'node:path';
import { LATENCY_PROFILES } from '../../lib/services/live/latency-profiles';
import { createLiveStream, createSimulcastTarget, multivariantUrlOf, redactKeys, rtmpUrlOf, waitForNoPackagers, type BenchLiveStream, type LatencyMode, type LiveCaseContext } from './live-api';
import { createStreamWithSlate, liveStreamStatus, startAcceptThenClose, startNotAnImage, type LocalServer } from './live-hostile-acts';
import { runHostileActs, type HostileAct } from './live-hostile-run';
import { BroadcastPoller, FileGrowthWatcher, type BroadcastWatch, type FileGrowth } from './live-hostile-watch';
import { waitForPlayable } from './live-playlists';
import { startLivePublisher, type LivePublisher } from './live-processes';
import { startFfmpegRtmpReceiver } from './live-simulcast';
import { freePort } from '../free-port.mjs';
import type { KeyframeProcess } from '../keyframe-process';
import { descendantsOf, isFfmpeg } from '../processes';
import { errorMessage, round, sleep } from '../stats';
import { WebhookReceiver } from '../webhook-receiver';

// Hostile input (issue 30): one reduced-latency broadcast is published and watched (a poller on
// its first rendition, every new segment fetched) while it is restreamed to three simulcast
// targets — a good one (an ffmpeg RTMP listener writing to a file), one nobody listens on, and one
// that accepts each connection and drops it — and, meanwhile, one hostile input after another is
// thrown at the server (live-hostile-run.ts). Measured: what each hostile input got back and how
// long after the act, and whether the watched broadcast and its good target went on undisturbed
// through the window the acts ran in. A webhook receiver records every event with its arrival.

export const HOSTILE_LATENCY_MODE: LatencyMode = 'reduced';
// Once the bad targets have failed their first attempt, before the acts; and after the last act,
// so that a disturbance the acts leave behind (a late packager restart) shows in the window.
const SETTLE_BEFORE_MS = 2_000;
const WATCH_AFTER_MS = 8_000;
const TARGETS_FIRST_ATTEMPT_TIMEOUT_MS = 20_000;

export type BadTargetCheck = {
  label: string;
  /** The publisher's spawn → its first video.live_stream.simulcast_target.errored. */
  firstErroredAfterMs: number | null;
  statusAtEnd: string | null;
  /** Its simulcast_target webhooks from the broadcast's start to the window's end, by status. */
  events: Record<string, number>;
  /** Connections the target's server accepted (its retries), for the one that drops them. */
  connections: number | null;
};

export type LiveHostileResult = {
  latencyMode: LatencyMode;
  segmentSeconds: number;
  windowSeconds: number;
  acts: HostileAct[];
  broadcast: BroadcastWatch & {
    publisherRunning: boolean;
    /** Media seconds the publisher sent per wall second in the window (it slows if the server stops reading). */
    publisherRate: number | null;
    statusAtEnd: string | null;
    /** video.live_stream.* webhooks about the watched stream in the window (a disturbance would show as disconnected). */
    streamEventsInWindow: string[];
  };
  goodTarget: FileGrowth & { statusAtEnd: string | null; eventsInWindow: string[] };
  badTargets: BadTargetCheck[];
  /** The server's ffmpeg children once the acts are over: nothing a refused input started is left. */
  serverFfmpegAtEnd: { packagers: number; restreams: number; srtRelays: number; other: number };
  /** The server's warnings and errors logged in the window, by message (and the stream it names). */
  serverWarnings: Record<string, number>;
};

const countBy = (values: string[]): Record<string, number> => values.reduce<Record<string, number>>((counts, value) => ({ ...counts, [value]: (counts[value] ?? 0) + 1 }), {});

const publisherRate = (publisher: LivePublisher, fromMs: number, toMs: number): number | null => {
  const samples = publisher.progress.filter((sample) => sample.atMs >= fromMs && sample.atMs <= toMs);
  const first = samples[0];
  const last = samples.at(-1);
  return first && last && last.atMs > first.atMs ? round((last.outSeconds - first.outSeconds) / ((last.atMs - first.atMs) / 1000), 3) : null;
};

const serverFfmpeg = (serverPid: number | undefined, stream: BenchLiveStream, targetPorts: number[]): LiveHostileResult['serverFfmpegAtEnd'] => {
  const running = serverPid === undefined ? [] : descendantsOf(serverPid).filter(isFfmpeg);
  const restream = (argv: string[]) => targetPorts.some((port) => argv.some((arg) => arg.includes(`127.0.0.1:${port}/`)));
  const relay = (argv: string[]) => argv.some((arg) => arg.includes('mode=listener'));
  const packager = (argv: string[]) => argv.some((arg) => arg.startsWith('rtmp://127.0.0.1') && arg.endsWith(`/${stream.streamKey}`));
  return {
    restreams: running.filter((entry) => restream(entry.argv)).length,
    srtRelays: running.filter((entry) => relay(entry.argv)).length,
    packagers: running.filter((entry) => !restream(entry.argv) && !relay(entry.argv) && packager(entry.argv)).length,
    other: running.filter((entry) => !restream(entry.argv) && !relay(entry.argv) && !packager(entry.argv)).length,
  };
};

/** Warnings and errors the server logged from `fromMs` to `toMs`, by message and the stream they name. */
const serverWarnings = (server: KeyframeProcess, fromMs: number, toMs: number, streams: Record<string, BenchLiveStream>): Record<string, number> =>
  countBy(
    server
      .findLogRecords({})
      .filter((record) => typeof record.time === 'number' && record.time >= fromMs && record.time <= toMs && typeof record.level === 'number' && record.level >= 40)
      .map((record) => {
        const stream = Object.entries(streams).find(([, candidate]) => candidate.id === record.liveStreamId)?.[0];
        return `${String(record.msg)}${stream ? ` (${stream})` : ''}`;
      }),
  );

export const measureLiveHostile = async ({
  server,
  token,
  rtmpPort,
  srtPort,
  input,
  workDir,
  log,
}: LiveCaseContext & {
  srtPort: number;
  workDir: string;
}): Promise<LiveHostileResult> => {
  const webhooks = await WebhookReceiver.start(0, { verifySignatures: false });
  let endpointId: string | null = null;
  const started: { receiver?: Awaited<ReturnType<typeof startFfmpegRtmpReceiver>>; dropper?: LocalServer; notAnImage?: LocalServer; publisher?: LivePublisher; poller?: BroadcastPoller; growth?: FileGrowthWatcher } = {};
  const streams: BenchLiveStream[] = [];
  try {
    endpointId = (await server.createWebhookEndpoint(webhooks.url)).id;
    const receiver = (started.receiver = await startFfmpegRtmpReceiver(path.join(workDir, 'hostile-good-target.flv')));
    const dropper = (started.dropper = await startAcceptThenClose());
    const notAnImage = (started.notAnImage = await startNotAnImage());
    const deadPort = await freePort();
    const watched = await createLiveStream(server.baseUrl, token, HOSTILE_LATENCY_MODE);
    streams.push(watched);
    const targets = {
      good: await createSimulcastTarget(server.baseUrl, token, watched, { url: `rtmp://127.0.0.1:${receiver.port}/live`, stream_key: 'receiver' }),
      unreachable: await createSimulcastTarget(server.baseUrl, token, watched, { url: `rtmp://127.0.0.1:${deadPort}/live`, stream_key: 'nobody' }),
      dropping: await createSimulcastTarget(server.baseUrl, token, watched, { url: `rtmp://127.0.0.1:${dropper.port}/live`, stream_key: 'dropped' }),
    };
    const slateStream = await createStreamWithSlate(server.baseUrl, token, `http://127.0.0.1:${notAnImage.port}/slate.png`);
    streams.push(slateStream);
    const redact = (text: string) => redactKeys(text, streams);

    log(`live hostile: a ${HOSTILE_LATENCY_MODE} 720p30 broadcast restreamed to a good, an unreachable and a dropping RTMP target, watched while hostile inputs come one after another…`);
    const publisher = (started.publisher = startLivePublisher({ inputPath: input.path, ingestUrl: rtmpUrlOf(rtmpPort, watched) }));
    let publisherExited = false;
    void publisher.exited.then(() => (publisherExited = true));
    const playable = await waitForPlayable({ multivariantUrl: multivariantUrlOf(server.baseUrl, watched), startedAtMs: publisher.startedAtMs, timeoutMs: 30_000 });
    const poller = (started.poller = new BroadcastPoller(playable.variantUrls[0] ?? ''));
    const growth = (started.growth = new FileGrowthWatcher(receiver.file));
    const erroredAt = (targetId: string) => webhooks.received.find((entry) => entry.event?.type === 'video.live_stream.simulcast_target.errored' && entry.event?.object?.id === targetId)?.receivedAt ?? null;
    const deadline = Date.now() + TARGETS_FIRST_ATTEMPT_TIMEOUT_MS;
    while ((growth.bytesNow() === 0 || erroredAt(targets.unreachable) === null || erroredAt(targets.dropping) === null) && Date.now() < deadline) await sleep(100);
    await sleep(SETTLE_BEFORE_MS);

    const windowStartMs = Date.now();
    const acts = await runHostileActs({ server, token, ports: { rtmp: rtmpPort, srt: srtPort }, inputPath: input.path, watched, idle: slateStream, webhooks, redact, windowStartMs, log });
    await sleep(WATCH_AFTER_MS);
    const windowEndMs = Date.now();

    const status = await liveStreamStatus(server.baseUrl, token, watched);
    const targetStatus = (id: string) => status.targets.find((target) => target.id === id);
    const inWindow = (objectId: string) =>
      webhooks.received.filter((entry) => entry.event?.object?.id === objectId && entry.receivedAt >= windowStartMs && entry.receivedAt <= windowEndMs).map((entry) => String(entry.event?.type));
    const badTarget = (label: string, id: string, connections: number | null): BadTargetCheck => {
      const first = erroredAt(id);
      const seen = webhooks.received.filter((entry) => entry.event?.object?.id === id && entry.receivedAt <= windowEndMs);
      const state = targetStatus(id);
      return {
        label,
        firstErroredAfterMs: first === null ? null : first - publisher.startedAtMs,
        statusAtEnd: state ? `${state.status}${state.errorSeverity ? ` (${state.errorSeverity})` : ''}` : null,
        events: countBy(seen.map((entry) => String(entry.event?.type).replace('video.live_stream.simulcast_target.', ''))),
        connections,
      };
    };
    const result: LiveHostileResult = {
      latencyMode: HOSTILE_LATENCY_MODE,
      segmentSeconds: LATENCY_PROFILES[HOSTILE_LATENCY_MODE].segmentSeconds,
      windowSeconds: round((windowEndMs - windowStartMs) / 1000, 1),
      acts,
      broadcast: {
        ...poller.watched(windowStartMs, windowEndMs),
        publisherRunning: !publisherExited,
        publisherRate: publisherRate(publisher, windowStartMs, windowEndMs),
        statusAtEnd: status.status,
        streamEventsInWindow: inWindow(watched.id),
      },
      goodTarget: { ...growth.growth(windowStartMs, windowEndMs), statusAtEnd: targetStatus(targets.good)?.status ?? null, eventsInWindow: inWindow(targets.good) },
      badTargets: [badTarget('unreachable (closed port)', targets.unreachable, null), badTarget('accepts, then drops the connection', targets.dropping, dropper.hits())],
      serverFfmpegAtEnd: serverFfmpeg(server.pid, watched, [receiver.port, deadPort, dropper.port]),
      serverWarnings: serverWarnings(server, windowStartMs, windowEndMs, { 'the watched stream': watched, 'the slate stream': slateStream }),
    };
    const { broadcast, goodTarget } = result;
    log(
      `live hostile: ${acts.filter((act) => act.clear).length}/${acts.length} hostile inputs answered clearly; over ${result.windowSeconds} s the broadcast listed ${broadcast.segmentsListed} segments, ` +
        `${broadcast.msnGaps} msn gaps, longest wait for a new segment ${broadcast.longestBetweenNewSegmentsMs} ms (segment ${result.segmentSeconds} s); ` +
        `the good target grew ${goodTarget.bytesAtStart} → ${goodTarget.bytesAtEnd} bytes, still at most ${goodTarget.longestStillMs} ms`,
    );
    return result;
  } catch (error) {
    throw new Error(redactKeys(`${errorMessage(error)}; publisher: ${started.publisher?.stderr().slice(-300) ?? 'not started'}`, streams));
  } finally {
    await started.poller?.stop();
    await started.growth?.stop();
    await started.publisher?.stop();
    await started.receiver?.stop();
    await started.dropper?.close();
    await started.notAnImage?.close();
    // The server would otherwise go on retrying deliveries to the receiver closed below.
    if (endpointId !== null) await server.cli(['webhooks', 'delete', endpointId]).catch(() => undefined);
    await webhooks.close();
    await waitForNoPackagers(server.pid);
  }
};
