import { createRedisClient, sharedRedis } from '../../coordination/redis-client';
import { produceOnceOnPostgres } from '../../coordination/postgres-segment-lock';
import { produceLocally, produceOnceAcrossNodes, type ProduceOnce } from '../../coordination/segment-lock';
import { getEnv } from '../../env';
import { getLogger } from '../../log';
import { parseSegmentFileName, shortSideOfRungName } from '../../media/names';
import { recordSegmentEncode } from '../../metrics/record';
import { lazyParts } from '../../runtime/lazy-parts';
import { hlsFileOfAssetsPath } from '../../storage/asset-files';
import { SegmentCache } from '../../storage/segment-cache';
import { DeadlineScheduler, type FinishedWork, type ScheduledWork } from '../../utils/deadline-scheduler';
import { encodeCostPerMediaSecond } from './encode-costs';
import { EncodeDemand } from './encode-demand';
import { describeLoad, type EncodeKind, type EncodeSubject } from './load-snapshot';
import type { SegmentRequest } from './playback-plan';
import { playbackState } from './playback-state';
import { ViewerStreams, type ViewerStream } from './viewer-streams';

// This node's just-in-time encoder (a piece of its playback state, see playback-state.ts): the
// scheduler every ffmpeg of playback goes through, the in-flight segment encodes (so concurrent
// requests for one segment share one ffmpeg run), the viewers' streams that give encodes their
// deadlines, and the bounded rendition cache.

export type Encoder = {
  scheduler: DeadlineScheduler<EncodeKind, EncodeSubject>;
  inFlightEncodes: Map<string, InFlightEncode>;
  segmentProduction: ProduceOnce;
  viewerStreams: ViewerStreams;
  encodeDemand: EncodeDemand;
  segmentCache: SegmentCache;
  /** When the last 'encoding load' line was logged. */
  loadLog: { lastAt: number };
};

declare module './playback-state' {
  interface PlaybackState {
    encoder: Encoder;
  }
}

// Each piece is made on first use: a node that never plays anything makes no scheduler, and one
// without REDIS_URL opens no connection.
export const createEncoder = (): Encoder =>
  lazyParts<Encoder>({
    scheduler: createEncoderScheduler,
    inFlightEncodes: () => new Map<string, InFlightEncode>(),
    segmentProduction: createSegmentProduction,
    viewerStreams: createViewerStreams,
    encodeDemand: createEncodeDemand,
    segmentCache: createSegmentCache,
    loadLog: () => ({ lastAt: 0 }),
  });

const encoder = (): Encoder => playbackState().encoder;

export type { EncodeKind, EncodeSubject } from './load-snapshot';

/**
 * How urgent a segment encode is. `onDemand`: a viewer waits for it. `prefetch`: a viewer will ask
 * for it soon. `background`: rungs above 1080p, encoded ahead of any listing. `fill`: the rest of a
 * watched asset's ladder, encoded on idle encoders.
 */
export const ENCODE_PRIORITY = { onDemand: 0, prefetch: 1, background: 2, fill: 3 } as const;
export type EncodePriority = (typeof ENCODE_PRIORITY)[keyof typeof ENCODE_PRIORITY];

// An 'encoding load' line at most this often while the encoder has work.
const LOAD_LOG_INTERVAL_MS = 5_000;

// One debug line per encode, with its slack (negative: finished after the viewer's deadline).
const logFinished = (work: FinishedWork<EncodeKind, EncodeSubject>) => {
  const log = getLogger();
  if (!log.isLevelEnabled('debug')) return;
  log.debug(
    {
      work: work.label,
      kind: work.kind,
      workClass: work.workClass,
      ok: work.ok,
      waitedMs: work.startedAt - work.queuedAt,
      ranMs: work.finishedAt - work.startedAt,
      slackMs: Number.isFinite(work.deadline) ? work.deadline - work.finishedAt : null,
      missedDeadline: work.missedDeadline,
      preemptions: work.preemptions,
    },
    'encode finished',
  );
};

// Every segment encode, of every rung and for every reason (a viewer, a prefetch, filling idle
// encoders, background rungs, the audio track), finishes here; image work carries no subject.
const countSegmentEncode = (work: FinishedWork<EncodeKind, EncodeSubject>) => {
  if (!work.subject || work.subject.encodedHere === false) return;
  recordSegmentEncode({
    rung: work.subject.rung,
    priority: work.subject.forBackgroundRungs && work.workClass === 'idle' ? 'background' : work.workClass,
    result: work.outcome,
    seconds: (work.finishedAt - work.startedAt) / 1000,
  });
};

const loadLog = () => encoder().loadLog;

// Logged from the scheduler's own events, so an idle encoder logs nothing and needs no timer.
const logLoadNowAndThen = () => {
  const now = Date.now();
  if (now - loadLog().lastAt < LOAD_LOG_INTERVAL_MS) return;
  const scheduler = encoderScheduler();
  if (scheduler.running() === 0 && scheduler.queued() === 0) return;
  loadLog().lastAt = now;
  const { at: _at, rungCosts, ...load } = describeLoad(scheduler);
  getLogger().info(
    { ...load, rungCosts: Object.fromEntries(rungCosts.map((cost) => [cost.rung, Math.round(cost.secondsPerMediaSecond * 1000) / 1000])) },
    'encoding load',
  );
};

const createEncoderScheduler = () =>
  new DeadlineScheduler<EncodeKind, EncodeSubject>({
    slots: getEnv().jitEncodeConcurrency,
    // After the scheduler has handed the freed slot on, so the line shows the state it settled in.
    onStart: () => queueMicrotask(logLoadNowAndThen),
    onFinish: (work) => {
      logFinished(work);
      countSegmentEncode(work);
      queueMicrotask(logLoadNowAndThen);
    },
  });

export const encoderScheduler = (): DeadlineScheduler<EncodeKind, EncodeSubject> => encoder().scheduler;

/** Milliseconds until deadline work due at `deadline` would start (see DeadlineScheduler.estimatedStartMs). */
export const estimatedStartMs = (deadline: number): number => encoderScheduler().estimatedStartMs(deadline);

export type InFlightEncode = {
  work: ScheduledWork<void, EncodeKind>;
  kind: EncodeKind;
  assetId: string;
  rung: string;
  request: SegmentRequest;
  subject: EncodeSubject;
  // The encode of another rung of the same segment that took this one on (see
  // joint-segment-encodes.ts): made more urgent, that one must be too.
  ridingWith: InFlightEncode | null;
  // Streams this encode is a prefetch for; when none is left (each left or switched rungs) and
  // nobody waits, the encode is dropped.
  prefetchFor: Set<string>;
  // Viewers' requests waiting for this encode; when the last one goes away and no stream still
  // expects it, it is cancelled rather than left holding an encoder.
  viewers: number;
  // Cancelled on purpose (unwanted), not failed: whoever merely joined it tries again.
  dropped: boolean;
  // Background rungs or cache fill want it too: it is never dropped for lack of viewers.
  wantedInBackground: boolean;
};

/** What identifies one (asset, rung, segment) encode, in inFlightEncodes and wherever it is tracked. */
export const encodeKey = (assetId: string, rungName: string, index: number): string => `${assetId}/${rungName}/${index}`;

/** The name under which nodes produce one segment once (see segment-lock.ts). */
export const segmentProductionKey = (key: string): string => `segment:${key}`;

// Within a process, inFlightEncodes shares one encode among the requests for a segment; across
// nodes this shares it too: one node encodes, the others wait for it and read the stored segment.
// With REDIS_URL through Redis (a lock and a "done" message); nodes sharing only PostgreSQL through
// its advisory locks (waiters poll); SQLite has one node.
const createSegmentProduction = (): ProduceOnce => {
  const { redis: config, database } = getEnv();
  if (config) return produceOnceAcrossNodes({ config, commands: sharedRedis(), subscriber: createRedisClient(config, 'segment-done') });
  if (database.provider === 'postgresql') return produceOnceOnPostgres({ connectionString: database.url });
  return produceLocally;
};

export const segmentProduction = (): ProduceOnce => encoder().segmentProduction;

export const inFlightEncodes = (): Map<string, InFlightEncode> => encoder().inFlightEncodes;

/** Nobody waits for it, no stream expects it, and neither background rungs nor fill want it. */
export const isUnwanted = (flight: InFlightEncode): boolean =>
  flight.viewers === 0 && flight.prefetchFor.size === 0 && !flight.wantedInBackground;

/** Drops an encode nobody wants any more: queued, or running (its ffmpeg is killed). */
export const dropEncode = (flight: InFlightEncode, reason: string): void => {
  flight.dropped = true;
  flight.work.cancel(new Error(reason));
};

// A stream that left (went silent, or moved to another rung) no longer expects these encodes:
// those made for it alone are dropped.
const releasePrefetchesOf = (stream: ViewerStream, keep: (flight: InFlightEncode) => boolean, reason: string) => {
  for (const flight of inFlightEncodes().values()) {
    if (!flight.prefetchFor.has(stream.id) || keep(flight)) continue;
    flight.prefetchFor.delete(stream.id);
    if (isUnwanted(flight)) dropEncode(flight, reason);
  }
};

const createViewerStreams = () =>
  new ViewerStreams({
    onGone: (stream) => {
      encodeDemand().forget(stream.id);
      releasePrefetchesOf(stream, () => false, 'the viewer left');
    },
  });

export const viewerStreams = (): ViewerStreams => encoder().viewerStreams;

const createEncodeDemand = () =>
  new EncodeDemand({
    capacity: () => encoderScheduler().limit(),
    costOf: (rung) => encodeCostPerMediaSecond(rung)?.secondsPerMediaSecond ?? null,
  });

/** Which viewers the encoders have promised to keep up with (see encode-demand.ts). */
export const encodeDemand = (): EncodeDemand => encoder().encodeDemand;

/**
 * The stream moved to another rung: its prefetches of the other rungs are dropped, but not those of
 * a rung another player of the same client still plays (see ViewerStreams.stillPlayedBesides).
 */
export const releaseOtherRungPrefetches = (stream: ViewerStream): void =>
  releasePrefetchesOf(
    stream,
    (flight) => flight.assetId === stream.assetId && (flight.rung === stream.rung || viewerStreams().stillPlayedBesides(stream, flight.rung)),
    'the viewer switched rungs',
  );

const createSegmentCache = () =>
  new SegmentCache({
    maxBytes: getEnv().renditionCacheMaxBytes,
    onError: (error: unknown) => getLogger().warn({ err: error }, 'rendition cache eviction failed'),
  });

export const segmentCache = (): SegmentCache => encoder().segmentCache;

// Only just-in-time video segments are evictable: init segments are tiny, the audio track is
// encoded once, and background rungs (≥1440p) are too slow to re-encode on demand.
export const isEvictableSegment = (relativePath: string): boolean => {
  const file = hlsFileOfAssetsPath(relativePath);
  if (!file || parseSegmentFileName(file.file) === null) return false;
  const shortSide = shortSideOfRungName(file.rendition);
  return shortSide !== null && shortSide <= 1080;
};
