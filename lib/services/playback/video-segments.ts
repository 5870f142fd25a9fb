import { getEnv } from '../../env';
import { withAssetCancellation } from '../../jobs/signals';
import { getLogger } from '../../log';
import { shiftDecodeTime, splitFragmentedMp4 } from '../../media/fmp4';
import { buildInitSegmentArgs, buildVideoSegmentArgs, VIDEO_TIMESCALE } from '../../media/hls/encode-args';
import type { Rung } from '../../media/hls/ladder';
import { encodeWindow } from '../../media/hls/segment-plan';
import { runProcess } from '../../media/run-process';
import { initSegmentPath, isStoredFile, mediaSegmentPath } from '../../storage/asset-files';
import { processSingleton } from '../../utils/process-singleton';
import { sourceInput } from '../ingest/source-input';
import type { PlaybackPlan } from './playback-plan';
import { publishFile } from './publish-file';
import { ENCODE_PRIORITY, encoderSlots, inFlightEncodes, segmentCache, speculativeSlots, type InFlightEncode } from './runtime';

const ENCODE_TIMEOUT_MS = 10 * 60_000;


type SegmentRequest = { assetId: string; plan: PlaybackPlan; rung: Rung; index: number };

// Runs one ffmpeg encode to stdout and returns its output; stopped by `cancel` or by the asset's
// deletion. `what` names the output in errors. A `yieldCpu` encode runs at the lowest priority.
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
}): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  const result = await withAssetCancellation(assetId, cancel, async (signal) => {
    const run = await runProcess({
      command: getEnv().ffmpegPath,
      args,
      timeoutMs: ENCODE_TIMEOUT_MS,
      signal,
      onStdout: (chunk) => chunks.push(chunk),
      background: yieldCpu,
    });
    return { ...run, stopped: signal.aborted };
  });
  if (result.stopped) throw new Error(cancel?.aborted ? `${what} was cancelled` : `asset ${assetId} was deleted`);
  if (result.exitCode !== 0) {
    const reason = result.timedOut ? 'timed out' : result.signal ? `was killed (${result.signal})` : `exited with ${result.exitCode}`;
    throw new Error(`ffmpeg ${reason} encoding ${what}: ${result.stderr.trim().slice(-500)}`);
  }
  return Buffer.concat(chunks);
};

// Every encode of a rung yields the same init segment; the first one to finish provides it.
const publishInitOnce = async (assetId: string, rung: Rung, init: Buffer): Promise<void> => {
  const initPath = initSegmentPath(getEnv().dataDir, assetId, rung.name);
  if (!(await isStoredFile(initPath))) await publishFile(initPath, init);
};

// Encodes one (rung, segment) from the source: input seek to the segment's window, forced
// keyframe at its start, then the fragments' decode times are moved to the segment's place on
// the plan's timeline, so consecutive segments continue each other with no discontinuity.
const encodeVideoSegment = async (
  { assetId, plan, rung, index, priority }: SegmentRequest & { priority: number },
  cancel: AbortSignal,
): Promise<void> => {
  const env = getEnv();
  const target = mediaSegmentPath(env.dataDir, assetId, rung.name, index);
  if (await isStoredFile(target)) return;
  const videoPlan = plan.video;
  const segment = videoPlan?.segments[index];
  if (!videoPlan || !segment) throw new RangeError(`segment ${index} is not in the plan`);

  const window = encodeWindow(videoPlan, index);
  const startedAt = performance.now();
  const inputPath = await sourceInput(assetId);
  const output = await encodeToMemory({
    assetId,
    args: buildVideoSegmentArgs({ inputPath, rung, ...window }),
    cancel,
    what: `${rung.name} segment ${index}`,
    // Background rungs (≥1440p) take minutes nobody is waiting for; viewers' segments go first.
    yieldCpu: priority === ENCODE_PRIORITY.background,
  });

  const { init, fragments } = splitFragmentedMp4(output);
  if (fragments.length === 0) throw new Error(`ffmpeg produced no frames for ${rung.name} segment ${index}`);
  const offset = BigInt(Math.round(segment.start * VIDEO_TIMESCALE));
  const media = Buffer.concat(fragments.map((fragment) => shiftDecodeTime(fragment, offset)));

  await publishInitOnce(assetId, rung, init);
  await publishFile(target, media);
  segmentCache().record(target, media.length);
  getLogger().debug(
    { assetId, rung: rung.name, index, ms: Math.round(performance.now() - startedAt), bytes: media.length },
    'segment encoded',
  );
};

const startEncode = (request: SegmentRequest & { priority: number }, key: string): InFlightEncode => {
  const flights = inFlightEncodes();
  const cancel = new AbortController();
  const flight: InFlightEncode = { done: Promise.resolve(), priority: request.priority, started: false, cancel, viewers: 0 };
  const encode = () => {
    flight.started = true;
    return encodeVideoSegment(request, cancel.signal);
  };
  const isOnDemand = request.priority === ENCODE_PRIORITY.onDemand;
  flight.done = (
    isOnDemand
      ? encoderSlots().run(request.priority, encode, cancel.signal)
      : speculativeSlots().run(request.priority, () => encoderSlots().run(request.priority, encode, cancel.signal), cancel.signal)
  ).finally(() => {
    if (flights.get(key) === flight) flights.delete(key);
  });
  flights.set(key, flight);
  return flight;
};

// The path of a segment the rendition cache knows is stored (marked as just used), or null. No
// system call: the index is kept in memory. Background rungs are not in it.
export const storedVideoSegment = (assetId: string, rung: Rung, index: number): string | null => {
  const target = mediaSegmentPath(getEnv().dataDir, assetId, rung.name, index);
  return segmentCache().touch(target) ? target : null;
};

// Returns the path of a segment, encoding it first if it is not stored. Concurrent callers for the
// same segment share one encode; encodes beyond the global limit wait for a slot by priority. A
// viewer asking for a segment that is only queued as a prefetch takes it over at their priority.
// `viewer` is the signal of the HTTP request waiting for the segment: a player that gives up on
// it (hls.js aborts a request when it switches rungs) releases the encoder for what it asks next.
export const ensureVideoSegment = async (request: SegmentRequest & { priority: number; viewer?: AbortSignal }): Promise<string> => {
  const { assetId, rung, index, priority, viewer } = request;
  const target = mediaSegmentPath(getEnv().dataDir, assetId, rung.name, index);
  const key = `${assetId}/${rung.name}/${index}`;
  for (;;) {
    // The rendition cache's index knows the evictable segments on disk without a system call;
    // segments it does not track (background rungs) are looked for on disk.
    if (segmentCache().touch(target) || (await isStoredFile(target))) return target;
    const existing = inFlightEncodes().get(key);
    if (existing && !existing.started && existing.priority > priority) {
      existing.cancel.abort(new Error('overtaken by a higher-priority request'));
      inFlightEncodes().delete(key);
      continue;
    }
    const flight = existing ?? startEncode(request, key);
    const release = viewer ? watchViewer(flight, viewer) : () => undefined;
    try {
      await flight.done;
    } catch (error) {
      if (viewer?.aborted) throw error;
      // A cancelled prefetch we merely joined is not our failure: try again ourselves.
      if (flight !== existing || !flight.cancel.signal.aborted) throw error;
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
    if (flight.viewers === 0 && flight.priority === ENCODE_PRIORITY.onDemand) flight.cancel.abort(new Error('the viewer went away'));
  };
  if (viewer.aborted) onAbort();
  else viewer.addEventListener('abort', onAbort, { once: true });
  return leave;
};

const initEncodes = () => processSingleton('init-encodes', () => new Map<string, Promise<void>>());

const encodeInitSegment = async ({ assetId, rung }: Omit<SegmentRequest, 'index' | 'plan'>): Promise<void> => {
  const inputPath = await sourceInput(assetId);
  const output = await encodeToMemory({ assetId, args: buildInitSegmentArgs({ inputPath, rung }), what: `the ${rung.name} init segment` });
  await publishInitOnce(assetId, rung, splitFragmentedMp4(output).init);
};

// A player switching rungs asks for the new rung's init.mp4 right before the segment it wants.
// The init comes from a one-frame encode (about 0.15 s, so it skips the encoder queue) rather than
// from encoding segment 0, which that player does not need; a starting player, whose segment 0 is
// already being encoded, gets the init that encode writes.
export const ensureInitSegment = async ({ assetId, rung }: Omit<SegmentRequest, 'index'>): Promise<string> => {
  const initPath = initSegmentPath(getEnv().dataDir, assetId, rung.name);
  if (await isStoredFile(initPath)) return initPath;
  const segmentZero = inFlightEncodes().get(`${assetId}/${rung.name}/0`);
  if (segmentZero?.started) {
    await segmentZero.done.catch(() => undefined);
    if (await isStoredFile(initPath)) return initPath;
  }
  const key = `${assetId}/${rung.name}`;
  let encode = initEncodes().get(key);
  if (!encode) {
    encode = encodeInitSegment({ assetId, rung }).finally(() => initEncodes().delete(key));
    initEncodes().set(key, encode);
  }
  await encode;
  return initPath;
};

// A viewer asking for a rung has switched away from the asset's other rungs, so the prefetches
// of those rungs that nobody is waiting for are dropped, running ones included (their ffmpeg is
// killed). On a small box the switch is the worst moment to share the CPU: the new rung's segment
// is cold and the player's buffer is short, and an unwatched encode beside it can double its time.
// Another viewer on the old rung loses only speculation: its next segment is encoded on request.
export const dropOtherRungPrefetches = ({ assetId, rung }: Pick<SegmentRequest, 'assetId' | 'rung'>): void => {
  for (const [key, flight] of inFlightEncodes()) {
    const isOtherRung = key.startsWith(`${assetId}/`) && !key.startsWith(`${assetId}/${rung.name}/`);
    if (isOtherRung && flight.priority === ENCODE_PRIORITY.prefetch && flight.viewers === 0) {
      flight.cancel.abort(new Error('the viewer switched rungs'));
    }
  }
};

// After a viewer asks for segment n of a rung, the next few are encoded ahead of them.
export const prefetchFollowing = (request: SegmentRequest): void => {
  const { assetId, plan, rung, index } = request;
  const count = plan.video?.segments.length ?? 0;
  const ahead = getEnv().prefetchSegments;
  for (let next = index + 1; next <= index + ahead && next < count; next++) {
    const key = `${assetId}/${rung.name}/${next}`;
    if (inFlightEncodes().has(key) || segmentCache().has(mediaSegmentPath(getEnv().dataDir, assetId, rung.name, next))) continue;
    // Cancelled prefetches end here too; a real encode failure shows again when the segment is asked for.
    ensureVideoSegment({ ...request, index: next, priority: ENCODE_PRIORITY.prefetch }).catch((error: unknown) =>
      getLogger().debug({ err: error, key }, 'prefetch did not complete'),
    );
  }
};
