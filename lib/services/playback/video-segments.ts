import { stat } from 'node:fs/promises';
import { getEnv } from '../../env';
import { withAssetCancellation } from '../../jobs/signals';
import { getLogger } from '../../log';
import { splitFragmentedMp4 } from '../../media/fmp4';
import { shiftDecodeTime } from '../../media/fmp4-decode-times';
import { buildInitSegmentArgs, buildVideoSegmentArgs, VIDEO_TIMESCALE } from '../../media/hls/encode-args';
import type { Rung } from '../../media/hls/ladder';
import { encodeWindow } from '../../media/hls/segment-plan';
import { cpuSecondsFromReport, problemsInReport, withCpuReport } from '../../media/cpu-report';
import { runProcess } from '../../media/run-process';
import { childProcesses } from '../processes/child-processes';
import { initSegmentPath, isStoredFile, mediaSegmentPath } from '../../storage/asset-files';
import type { WorkAttempt, WorkClass } from '../../utils/deadline-scheduler';
import { sourceInput } from '../inputs/source-input';
import { publicUrlInBucket, redirectsToBucket } from '../storage/bucket-redirects';
import { fetchFromBucket, isStoredHereOrShared, shareFile, shareInBackground, sharedStore } from '../storage/shared-storage';
import { encodeCostPerMediaSecond, recordEncodeCost } from './encode-costs';
import { overlayImages } from './overlay-images';
import type { PlaybackPlan } from './playback-plan';
import { playbackState } from './playback-state';
import { publishFile } from '../../storage/atomic-file';
import {
  dropEncode,
  ENCODE_PRIORITY,
  encodeKey,
  encoderScheduler,
  inFlightEncodes,
  isUnwanted,
  segmentCache,
  segmentProduction,
  viewerStreams,
  type EncodeKind,
  type EncodePriority,
  type EncodeSubject,
  type InFlightEncode,
} from './runtime';
import type { ViewerStream } from './viewer-streams';

const ENCODE_TIMEOUT_MS = 10 * 60_000;

type SegmentRequest = { assetId: string; plan: PlaybackPlan; rung: Rung; index: number };

// Runs one ffmpeg encode to stdout and returns its output and the CPU seconds it used; stopped by
// `cancel` or by the asset's deletion. `what` names the output in errors. A `yieldCpu` encode runs
// at the lowest priority.
const encodeToMemory = async ({
  assetId,
  args,
  cancel,
  what,
  yieldCpu = false,
}: {
  assetId: string;
  args: string[];
  cancel?: AbortSignal;
  what: string;
  yieldCpu?: boolean;
}): Promise<{ output: Buffer; cpuSeconds: number | null }> => {
  const chunks: Buffer[] = [];
  const result = await withAssetCancellation(assetId, cancel, async (signal) => {
    const run = await runProcess({
      command: getEnv().ffmpegPath,
      args: withCpuReport(args),
      timeoutMs: ENCODE_TIMEOUT_MS,
      signal,
      onStdout: (chunk) => chunks.push(chunk),
      background: yieldCpu,
      children: childProcesses(),
    });
    return { ...run, stopped: signal.aborted };
  });
  if (result.stopped) throw new Error(cancel?.aborted ? `${what} was cancelled` : `asset ${assetId} was deleted`);
  if (result.exitCode !== 0) {
    const reason = result.timedOut ? 'timed out' : result.signal ? `was killed (${result.signal})` : `exited with ${result.exitCode}`;
    throw new Error(`ffmpeg ${reason} encoding ${what}: ${problemsInReport(result.stderr).trim().slice(-500)}`);
  }
  return { output: Buffer.concat(chunks), cpuSeconds: cpuSecondsFromReport(result.stderr) };
};

// Every encode of a rung yields the same init segment; the first one to finish provides it.
const publishInitOnce = async (assetId: string, rung: Rung, init: Buffer): Promise<void> => {
  const initPath = initSegmentPath(getEnv().dataDir, assetId, rung.name);
  if (await isStoredFile(initPath)) return;
  await publishFile(initPath, init);
  shareInBackground(initPath, init);
};

// Encodes one (rung, segment) from the source: input seek to the segment's window, forced
// keyframe at its start, then the fragments' decode times are moved to the segment's place on
// the plan's timeline, so consecutive segments continue each other with no discontinuity.
const encodeVideoSegmentBytes = async (
  { assetId, plan, rung, index }: SegmentRequest,
  attempt: WorkAttempt,
): Promise<{ init: Buffer; media: Buffer; encodeSeconds: number }> => {
  const videoPlan = plan.video;
  const segment = videoPlan?.segments[index];
  if (!videoPlan || !segment) throw new RangeError(`segment ${index} is not in the plan`);

  const window = encodeWindow(videoPlan, index);
  const inputPath = await sourceInput(assetId);
  const overlays = await overlayImages(assetId, plan);
  const startedAt = performance.now();
  const { output, cpuSeconds } = await encodeToMemory({
    assetId,
    args: buildVideoSegmentArgs({ inputPath, rung, ...window, overlays }),
    cancel: attempt.signal,
    what: `${rung.name} segment ${index}`,
    // Work nobody waits for (background rungs, cache fill) runs on what viewers leave idle.
    yieldCpu: attempt.background,
  });
  const encodeSeconds = (performance.now() - startedAt) / 1000;
  // CPU time is what the rung costs whatever the priority and the load it ran under.
  if (cpuSeconds !== null) recordEncodeCost({ rung: rung.name, cpuSeconds, mediaSeconds: segment.duration });

  const { init, fragments } = splitFragmentedMp4(output);
  if (fragments.length === 0) throw new Error(`ffmpeg produced no frames for ${rung.name} segment ${index}`);
  const offset = BigInt(Math.round(segment.start * VIDEO_TIMESCALE));
  const media = Buffer.concat(fragments.map((fragment) => shiftDecodeTime(fragment, offset)));
  return { init, media, encodeSeconds };
};

const encodeAndStoreVideoSegment = async (request: SegmentRequest, attempt: WorkAttempt, target: string): Promise<void> => {
  const { assetId, rung, index } = request;
  const { init, media, encodeSeconds } = await encodeVideoSegmentBytes(request, attempt);
  await publishInitOnce(assetId, rung, init);
  await publishFile(target, media);
  segmentCache().record(target, media.length);
  // Nodes waiting for this encode (segment-lock.ts) are told it is done when this returns, and look
  // for it in the bucket then: the upload must have landed. A failed one only costs them an encode.
  await shareFile(target, media).catch((error: unknown) => getLogger().warn({ err: error, target }, 'upload to the bucket failed'));
  getLogger().debug(
    { assetId, rung: rung.name, index, ms: Math.round(encodeSeconds * 1000), bytes: media.length, background: attempt.background },
    'segment encoded',
  );
};

const productionKey = (key: string): string => `segment:${key}`;

// Encodes a segment unless it is stored, or being encoded by another node (then waits for that one).
const encodeVideoSegment = async (request: SegmentRequest, attempt: WorkAttempt, subject: EncodeSubject): Promise<void> => {
  const { assetId, rung, index } = request;
  const target = mediaSegmentPath(getEnv().dataDir, assetId, rung.name, index);
  subject.encodedHere = false;
  await segmentProduction().run(productionKey(encodeKey(assetId, rung.name, index)), {
    isAvailable: () => isStoredHereOrShared(target),
    produce: () => {
      subject.encodedHere = true;
      return encodeAndStoreVideoSegment(request, attempt, target);
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

const expectedCostMs = (rung: Rung, mediaSeconds: number): number =>
  (encodeCostPerMediaSecond(rung.name)?.secondsPerMediaSecond ?? 0) * mediaSeconds * 1000;

const startEncode = (request: EncodeRequest, key: string): InFlightEncode => {
  const flights = inFlightEncodes();
  const need = needOf(request, Date.now());
  const subject: EncodeSubject = { rung: request.rung.name, forBackgroundRungs: request.priority === ENCODE_PRIORITY.background };
  const flight: InFlightEncode = {
    work: encoderScheduler().submit({
      ...need,
      label: key,
      subject,
      costMs: expectedCostMs(request.rung, request.plan.video?.segments[request.index]?.duration ?? 0),
      run: (attempt) => encodeVideoSegment(request, attempt, subject),
    }),
    kind: need.kind,
    assetId: request.assetId,
    rung: request.rung.name,
    prefetchFor: new Set(request.priority === ENCODE_PRIORITY.prefetch && request.stream ? [request.stream.id] : []),
    viewers: 0,
    dropped: false,
    wantedInBackground: request.priority >= ENCODE_PRIORITY.background,
  };
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
};

// The path of a segment the rendition cache knows is stored (marked as just used), or null. No
// system call: the index is kept in memory. Background rungs are not in it.
export const storedVideoSegment = (assetId: string, rung: Rung, index: number): string | null => {
  const target = mediaSegmentPath(getEnv().dataDir, assetId, rung.name, index);
  return segmentCache().touch(target) ? target : null;
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
    if (!existing && (await segmentProduction().waitForOtherNode(productionKey(key), { isAvailable: () => isStoredHereOrShared(target), signal: viewer }))) {
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
  const { output } = await encodeToMemory({ assetId, args: buildInitSegmentArgs({ inputPath, rung, overlays }), what: `the ${rung.name} init segment` });
  await publishInitOnce(assetId, rung, splitFragmentedMp4(output).init);
};

// A player switching rungs asks for the new rung's init.mp4 right before the segment it wants.
// The init comes from a one-frame encode (about 0.15 s, so it skips the encoder queue) rather than
// from encoding segment 0, which that player does not need; a starting player, whose segment 0 is
// already being encoded, gets the init that encode writes.
export const ensureInitSegment = async ({ assetId, plan, rung }: Omit<SegmentRequest, 'index'>): Promise<string> => {
  const initPath = initSegmentPath(getEnv().dataDir, assetId, rung.name);
  if (await isStoredHereOrShared(initPath)) return initPath;
  const segmentZero = inFlightEncodes().get(encodeKey(assetId, rung.name, 0));
  if (segmentZero?.work.state() === 'running') {
    await segmentZero.work.done.catch(() => undefined);
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
