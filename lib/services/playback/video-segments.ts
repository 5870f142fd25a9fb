import { stat } from 'node:fs/promises';
import { getEnv } from '../../env';
import { getLogger } from '../../log';
import { splitFragmentedMp4 } from '../../media/fmp4';
import { buildInitSegmentArgs } from '../../media/hls/encode-args';
import type { Rung } from '../../media/hls/ladder';
import { initSegmentPath, isStoredFile, mediaSegmentPath } from '../../storage/asset-files';
import type { WorkAttempt, WorkClass } from '../../utils/deadline-scheduler';
import { sourceInput } from '../inputs/source-input';
import { publicUrlInBucket, redirectsToBucket } from '../storage/bucket-redirects';
import { fetchFromBucket, isStoredHereOrInReachableBucket, sharedStore } from '../storage/shared-storage';
import { expectedEncodeMs } from './encode-costs';
import { encodeWithRiders } from './joint-segment-encodes';
import { overlayImages } from './overlay-images';
import type { SegmentRequest } from './playback-plan';
import { playbackState } from './playback-state';
import {
  dropEncode,
  ENCODE_PRIORITY,
  encodeKey,
  encoderScheduler,
  inFlightEncodes,
  isUnwanted,
  segmentCache,
  segmentProduction,
  segmentProductionKey,
  viewerStreams,
  type EncodeKind,
  type EncodePriority,
  type EncodeSubject,
  type InFlightEncode,
} from './runtime';
import { encodeToMemory, encodeVideoSegmentBytes, initPublishedOr, publishInitOnce, storeEncodedSegment } from './segment-encode-runs';
import type { ViewerStream } from './viewer-streams';

const encodeAndStoreVideoSegment = async (request: SegmentRequest, attempt: WorkAttempt, target: string): Promise<void> => {
  const { encodeSeconds, ...encoded } = await encodeVideoSegmentBytes(request, attempt);
  await storeEncodedSegment(request, encoded, target, { encodeSeconds, background: attempt.background });
};

// Encodes a segment unless it is stored, or being encoded by another node (then waits for that
// one), together with the other rungs of it that are waiting to be encoded (see
// joint-segment-encodes.ts).
const encodeVideoSegment = async (flight: InFlightEncode, attempt: WorkAttempt): Promise<void> => {
  const { assetId, rung, index } = flight.request;
  const target = mediaSegmentPath(getEnv().dataDir, assetId, rung.name, index);
  flight.subject.encodedHere = false;
  await segmentProduction().run(segmentProductionKey(encodeKey(assetId, rung.name, index)), {
    isAvailable: () => isStoredHereOrInReachableBucket(target),
    produce: () => {
      flight.subject.encodedHere = true;
      return encodeWithRiders(flight, attempt, target, () => encodeAndStoreVideoSegment(flight.request, attempt, target));
    },
    signal: attempt.signal,
  });
};

type Need = { kind: EncodeKind; workClass: WorkClass; deadline: number };

// What the scheduler makes of a request: an admitted viewer waiting is deadline work (due now
// unless its stream says later), a viewer not admitted yet (see encode-demand.ts) and a prefetch
// are speculative work, run when no deadline work waits, and background rungs and cache fill run
// only on idle encoders.
const needOf = ({ priority, deadline, notAdmitted = false }: EncodeRequest, now: number): Need => {
  switch (priority) {
    case ENCODE_PRIORITY.onDemand:
      return { kind: 'onDemand', workClass: notAdmitted ? 'speculative' : 'deadline', deadline: deadline ?? now };
    case ENCODE_PRIORITY.prefetch:
      return { kind: 'prefetch', workClass: 'speculative', deadline: deadline ?? now };
    default:
      return { kind: 'background', workClass: 'idle', deadline: Number.POSITIVE_INFINITY };
  }
};


const startEncode = (request: EncodeRequest, key: string): InFlightEncode => {
  const flights = inFlightEncodes();
  const need = needOf(request, Date.now());
  const subject: EncodeSubject = { rung: request.rung.name, forBackgroundRungs: request.priority === ENCODE_PRIORITY.background };
  const { assetId, plan, rung, index } = request;
  // The scheduler may start the work within submit(): the flight exists before it is submitted.
  const flight: InFlightEncode = {
    work: null as unknown as InFlightEncode['work'],
    kind: need.kind,
    assetId,
    rung: rung.name,
    request: { assetId, plan, rung, index },
    subject,
    ridingWith: null,
    prefetchFor: new Set(request.priority === ENCODE_PRIORITY.prefetch && request.stream ? [request.stream.id] : []),
    viewers: 0,
    dropped: false,
    wantedInBackground: request.priority >= ENCODE_PRIORITY.background,
  };
  flight.work = encoderScheduler().submit({
    ...need,
    label: key,
    subject,
    costMs: expectedEncodeMs(rung.name, plan.video?.segments[index]?.duration ?? 0),
    run: (attempt) => encodeVideoSegment(flight, attempt),
  });
  const forget = () => {
    if (flights.get(key) === flight) flights.delete(key);
  };
  flight.work.done.then(forget, forget);
  flights.set(key, flight);
  return flight;
};

// Another request for a segment already being encoded (or queued) makes it as urgent as the most
// urgent of them: a viewer taking over a prefetch, a prefetch taking over idle fill.
const join = (flight: InFlightEncode, request: EncodeRequest): void => {
  const need = needOf(request, Date.now());
  if (need.workClass === 'idle') {
    flight.wantedInBackground = true;
    return;
  }
  if (request.priority === ENCODE_PRIORITY.prefetch && request.stream) flight.prefetchFor.add(request.stream.id);
  const promotes = need.kind === 'onDemand' || flight.kind === 'background';
  if (promotes) flight.kind = need.kind;
  flight.work.hasten(need.workClass, need.deadline, promotes ? need.kind : undefined);
  // Being made by another rung's run: that run is now as urgent.
  flight.ridingWith?.work.hasten(need.workClass, need.deadline);
};

// The path of a segment the rendition cache knows is stored (marked as just used), or null. No
// system call: the index is kept in memory. Background rungs are not in it.
export const storedVideoSegment = (assetId: string, rung: Rung, index: number): string | null => {
  const target = mediaSegmentPath(getEnv().dataDir, assetId, rung.name, index);
  return segmentCache().touch(target) ? target : null;
};

/** Whether an encode of the segment is queued or running here; one being dropped (nobody wants it) is about to disappear and does not count. */
export const isSegmentBeingEncoded = (assetId: string, rung: Rung, index: number): boolean => {
  const flight = inFlightEncodes().get(encodeKey(assetId, rung.name, index));
  return flight !== undefined && !flight.dropped;
};

export type EncodeRequest = SegmentRequest & {
  priority: EncodePriority;
  /** Epoch ms at which the viewer needs the segment (see viewer-streams.ts); default: now. */
  deadline?: number;
  /** The signal of the HTTP request waiting for the segment. */
  viewer?: AbortSignal;
  /** The viewer's stream a prefetch is for: it is dropped when that stream leaves or switches rungs. */
  stream?: ViewerStream;
  /** The waiting viewer is not admitted yet: the encoders cannot promise it real time. */
  notAdmitted?: boolean;
};

// Returns the path of a segment, encoding it first if it is not stored. Concurrent callers for the
// same segment share one encode, which the scheduler runs earliest-deadline-first (see runtime.ts).
// `viewer` is the signal of the HTTP request waiting for the segment: a player that gives up on
// it (hls.js aborts a request when it switches rungs) releases the encoder for what it asks next.
export const ensureVideoSegment = async (request: EncodeRequest): Promise<string> => {
  const { assetId, rung, index, viewer } = request;
  const target = mediaSegmentPath(getEnv().dataDir, assetId, rung.name, index);
  const key = encodeKey(assetId, rung.name, index);
  const bucket = sharedStore();
  for (;;) {
    // The rendition cache's index knows the evictable segments on disk without a system call;
    // segments it does not track (background rungs) are looked for on disk.
    if (segmentCache().touch(target) || (await isStoredFile(target))) return target;
    // Encoded by another node (or by this one before its copy was evicted): copied from the bucket.
    if (bucket && !inFlightEncodes().has(key) && (await fetchFromBucket(bucket, target))) {
      const fetched = await stat(target).catch(() => null);
      if (fetched) {
        segmentCache().record(target, fetched.size);
        return target;
      }
      continue;
    }
    const existing = inFlightEncodes().get(key);
    // Another node encoding it is waited for here, not in an encoder slot this node's viewers need
    // (a lock taken between this look and the slot is still waited for inside it).
    if (!existing && (await segmentProduction().waitForOtherNode(segmentProductionKey(key), { isAvailable: () => isStoredHereOrInReachableBucket(target), signal: viewer }))) {
      if (viewer?.aborted) throw new Error(`the viewer of ${key} went away`);
      continue;
    }
    if (existing) join(existing, request);
    const flight = existing ?? startEncode(request, key);
    const release = viewer ? watchViewer(flight, viewer) : () => undefined;
    try {
      await flight.work.done;
    } catch (error) {
      if (viewer?.aborted) throw error;
      // An encode we merely joined, dropped because the others who wanted it went away, is not
      // our failure: a viewer waiting for it tries again itself. A prefetch does not: a prefetch is
      // only dropped once no stream expects it, its own included, and starting it again took CPU
      // from the rung the viewer had just switched to.
      if (flight !== existing || !flight.dropped || request.priority === ENCODE_PRIORITY.prefetch) throw error;
    } finally {
      release();
    }
  }
};

const watchViewer = (flight: InFlightEncode, viewer: AbortSignal): (() => void) => {
  flight.viewers++;
  let counted = true;
  const leave = () => {
    if (!counted) return;
    counted = false;
    flight.viewers--;
    viewer.removeEventListener('abort', onAbort);
  };
  const onAbort = () => {
    leave();
    if (isUnwanted(flight)) dropEncode(flight, 'the viewer went away');
  };
  if (viewer.aborted) onAbort();
  else viewer.addEventListener('abort', onAbort, { once: true });
  return leave;
};

declare module './playback-state' {
  interface PlaybackState {
    /** One-frame init segment encodes in flight, by asset and rung. */
    initEncodes: Map<string, Promise<void>>;
  }
}

const initEncodes = () => playbackState().initEncodes;

const encodeInitSegment = async ({ assetId, plan, rung }: Omit<SegmentRequest, 'index'>): Promise<void> => {
  const inputPath = await sourceInput(assetId);
  const overlays = await overlayImages(assetId, plan);
  const { written } = await encodeToMemory({ assetId, args: buildInitSegmentArgs({ inputPath, rung, overlays, sourceColour: plan.sourceColour }), what: `the ${rung.name} init segment` });
  await publishInitOnce(assetId, rung, splitFragmentedMp4(written[0] ?? Buffer.alloc(0)).init);
};

// A running encode of the rung (a segment's, or a joint one carrying it), which publishes the
// rung's init within a frame of starting: what it settles with, or null.
const runningEncodeOfRung = (assetId: string, rung: string): Promise<void> | null => {
  for (const flight of inFlightEncodes().values()) {
    if (flight.assetId === assetId && flight.rung === rung && !flight.dropped && flight.work.state() === 'running') return flight.work.done;
  }
  return null;
};

// A player switching rungs asks for the new rung's init.mp4 right before the segment it wants.
// The init comes from a one-frame encode (about 0.15 s, so it skips the encoder queue) rather than
// from encoding segment 0, which that player does not need; a starting player, whose segment 0 is
// already being encoded, gets the init that encode writes as soon as it has written it (the
// segment itself is then answered when it is done, so the player's bandwidth estimate sees what
// the segment cost).
export const ensureInitSegment = async ({ assetId, plan, rung }: Omit<SegmentRequest, 'index'>): Promise<string> => {
  const initPath = initSegmentPath(getEnv().dataDir, assetId, rung.name);
  if (await isStoredHereOrInReachableBucket(initPath)) return initPath;
  const running = runningEncodeOfRung(assetId, rung.name);
  if (running) {
    await initPublishedOr(initPath, running);
    if (await isStoredFile(initPath)) return initPath;
  }
  const key = `${assetId}/${rung.name}`;
  let encode = initEncodes().get(key);
  if (!encode) {
    encode = encodeInitSegment({ assetId, plan, rung }).finally(() => initEncodes().delete(key));
    initEncodes().set(key, encode);
  }
  await encode;
  return initPath;
};

// After a viewer asks for segment n of a rung, the next few are encoded ahead of them, each due
// when that viewer's buffer would reach it; they run only on encoders no viewer is waiting for.
export const prefetchFollowing = (request: SegmentRequest & { stream: ViewerStream }): void => {
  const { assetId, plan, rung, index, stream } = request;
  const segments = plan.video?.segments ?? [];
  const ahead = getEnv().prefetchSegments;
  const now = Date.now();
  for (let next = index + 1; next <= index + ahead && next < segments.length; next++) {
    if (segmentCache().has(mediaSegmentPath(getEnv().dataDir, assetId, rung.name, next))) continue;
    const deadline = viewerStreams().deadlineFor(stream, segments[next]?.start ?? 0, now);
    const key = encodeKey(assetId, rung.name, next);
    const prefetchRequest = { assetId, plan, rung, index: next, priority: ENCODE_PRIORITY.prefetch, deadline, stream };
    // Players fetch segments from the bucket's public URL (S3_PUBLIC_URL) when it has them: those
    // need neither an encode nor a copy here.
    const prefetch = redirectsToBucket()
      ? publicUrlInBucket(mediaSegmentPath(getEnv().dataDir, assetId, rung.name, next)).then((url) => (url ? undefined : ensureVideoSegment(prefetchRequest)))
      : ensureVideoSegment(prefetchRequest);
    // Cancelled prefetches end here too; a real encode failure shows again when the segment is asked for.
    prefetch.catch((error: unknown) => getLogger().debug({ err: error, key }, 'prefetch did not complete'));
  }
};
