import { recordEncodedSegment } from './encoded-bitrates';
import { getEnv } from '../../env';
import { withAssetCancellation } from '../../jobs/signals';
import { getLogger } from '../../log';
import { cpuSecondsFromReport, problemsInReport, withCpuReport } from '../../media/cpu-report';
import { splitFragmentedMp4, spotInitSegment } from '../../media/fmp4';
import { shiftDecodeTime } from '../../media/fmp4-decode-times';
import { buildMultiRungSegmentArgs, buildVideoSegmentArgs, VIDEO_TIMESCALE } from '../../media/hls/encode-args';
import type { Rung } from '../../media/hls/ladder';
import { encodeWindow } from '../../media/hls/segment-plan';
import { inputReadFailure } from '../../media/input-read-failure';
import { runProcess } from '../../media/run-process';
import { publishFile } from '../../storage/atomic-file';
import { initSegmentPath, isStoredFile } from '../../storage/asset-files';
import type { WorkAttempt } from '../../utils/deadline-scheduler';
import { sourceInput } from '../inputs/source-input';
import { childProcesses } from '../processes/child-processes';
import { shareFile, shareInBackground } from '../storage/shared-storage';
import { recordEncodeCost } from './encode-costs';
import { overlayImages } from './overlay-images';
import type { SegmentRequest } from './playback-plan';
import { playbackState } from './playback-state';
import { segmentCache } from './runtime';

// The ffmpeg runs behind just-in-time video segments: one rung of a segment, or several rungs of
// the same segment from one run that decodes the source window once (see joint-segment-encodes.ts).
// Each output is stored the same way: its init segment once per rung, the media segment with its
// decode times moved to the segment's place on the plan's timeline.

const ENCODE_TIMEOUT_MS = 10 * 60_000;

// Runs one ffmpeg encode and returns what it wrote (stdout, or each extra output pipe when
// `outputs` is given) and the CPU seconds it used; stopped by `cancel` or by the asset's deletion.
// `what` names the output in errors. A `yieldCpu` encode runs at the lowest priority. `onInit`
// gets each output's init segment as soon as ffmpeg has written it.
export const encodeToMemory = async ({
  assetId,
  args,
  outputs = 0,
  cancel,
  what,
  yieldCpu = false,
  onInit,
}: {
  assetId: string;
  args: string[];
  /** How many extra output pipes (file descriptors 3, 4, …) the run writes; 0: stdout. */
  outputs?: number;
  cancel?: AbortSignal;
  what: string;
  yieldCpu?: boolean;
  onInit?: (output: number, init: Buffer) => void;
}): Promise<{ written: Buffer[]; cpuSeconds: number | null }> => {
  const chunks: Buffer[][] = Array.from({ length: Math.max(1, outputs) }, () => []);
  const sinks = chunks.map((sink, output) => {
    const spot = onInit ? spotInitSegment((init) => onInit(output, init)) : undefined;
    return (chunk: Buffer) => {
      sink.push(chunk);
      spot?.(chunk);
    };
  });
  const result = await withAssetCancellation(assetId, cancel, async (signal) => {
    const run = await runProcess({
      command: getEnv().ffmpegPath,
      args: withCpuReport(args),
      timeoutMs: ENCODE_TIMEOUT_MS,
      signal,
      ...(outputs > 0
        ? { extraOutputs: sinks }
        : { onStdout: (chunk: Buffer) => sinks[0]?.(chunk) }),
      background: yieldCpu,
      children: childProcesses(),
    });
    return { ...run, stopped: signal.aborted };
  });
  if (result.stopped) throw new Error(cancel?.aborted ? `${what} was cancelled` : `asset ${assetId} was deleted`);
  const unread = inputReadFailure(args, result.stderr);
  if (unread) throw unread;
  if (result.exitCode !== 0) {
    const reason = result.timedOut ? 'timed out' : result.signal ? `was killed (${result.signal})` : `exited with ${result.exitCode}`;
    throw new Error(`ffmpeg ${reason} encoding ${what}: ${problemsInReport(result.stderr).trim().slice(-500)}`);
  }
  return { written: chunks.map((sink) => Buffer.concat(sink)), cpuSeconds: cpuSecondsFromReport(result.stderr) };
};

declare module './playback-state' {
  interface PlaybackState {
    /** Who waits for an encode in flight to publish a rung's init segment, by the init's path. */
    initArrivals: Map<string, Set<() => void>>;
  }
}

const initArrivals = () => playbackState().initArrivals;

// Every encode of a rung yields the same init segment; the first one to write it provides it.
export const publishInitOnce = async (assetId: string, rung: Rung, init: Buffer): Promise<void> => {
  const initPath = initSegmentPath(getEnv().dataDir, assetId, rung.name);
  if (!(await isStoredFile(initPath))) {
    await publishFile(initPath, init);
    shareInBackground(initPath, init);
  }
  for (const arrived of initArrivals().get(initPath) ?? []) arrived();
};

// An encode publishes its rung's init as soon as ffmpeg has written it (when the encoder opens),
// not when the segment is done: a starting player asks for the init before segment 0, and one
// that got it only with segment 0 took that segment as instant and climbed on the strength of it.
const publishInitEarly = (assetId: string, rung: Rung, init: Buffer): void => {
  publishInitOnce(assetId, rung, init).catch((error: unknown) => getLogger().warn({ err: error, assetId, rung: rung.name }, 'early init publish failed'));
};

/** Resolves once an encode publishes the init segment at `initPath` (see publishInitOnce), or `until` settles. */
export const initPublishedOr = async (initPath: string, until: Promise<unknown>): Promise<void> => {
  let arrived = () => undefined as void;
  const published = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const listeners = initArrivals().get(initPath) ?? new Set<() => void>();
  listeners.add(arrived);
  initArrivals().set(initPath, listeners);
  try {
    // Published between the caller's look and now: nobody would call back.
    if (await isStoredFile(initPath)) return;
    await Promise.race([published, until.then(noop, noop)]);
  } finally {
    listeners.delete(arrived);
    if (listeners.size === 0 && initArrivals().get(initPath) === listeners) initArrivals().delete(initPath);
  }
};

const noop = (): void => undefined;

type EncodedSegment = { init: Buffer; media: Buffer };

// An output of ffmpeg (init + fragments with decode times from zero) as the segment's init and
// media bytes, the fragments moved to the segment's place on the timeline, so consecutive
// segments continue each other with no discontinuity.
const placeOnTimeline = ({ plan, rung, index }: SegmentRequest, output: Buffer): EncodedSegment => {
  const segment = plan.video?.segments[index];
  if (!segment) throw new RangeError(`segment ${index} is not in the plan`);
  const { init, fragments } = splitFragmentedMp4(output);
  if (fragments.length === 0) throw new Error(`ffmpeg produced no frames for ${rung.name} segment ${index}`);
  const offset = BigInt(Math.round(segment.start * VIDEO_TIMESCALE));
  return { init, media: Buffer.concat(fragments.map((fragment) => shiftDecodeTime(fragment, offset))) };
};

const windowOf = ({ plan, index }: SegmentRequest) => {
  const videoPlan = plan.video;
  if (!videoPlan?.segments[index]) throw new RangeError(`segment ${index} is not in the plan`);
  return { window: encodeWindow(videoPlan, index), mediaSeconds: videoPlan.segments[index].duration };
};

// Encodes one (rung, segment) from the source: input seek to the segment's window, forced
// keyframe at its start.
export const encodeVideoSegmentBytes = async (request: SegmentRequest, attempt: WorkAttempt): Promise<EncodedSegment & { encodeSeconds: number }> => {
  const { assetId, plan, rung, index } = request;
  const { window, mediaSeconds } = windowOf(request);
  const inputPath = await sourceInput(assetId);
  const overlays = await overlayImages(assetId, plan);
  const startedAt = performance.now();
  const { written, cpuSeconds } = await encodeToMemory({
    assetId,
    args: buildVideoSegmentArgs({ inputPath, rung, ...window, overlays, sourceColour: plan.sourceColour }),
    cancel: attempt.signal,
    what: `${rung.name} segment ${index}`,
    // Work nobody waits for (background rungs, cache fill) runs on what viewers leave idle.
    yieldCpu: attempt.background,
    onInit: (_output, init) => publishInitEarly(assetId, rung, init),
  });
  const encodeSeconds = (performance.now() - startedAt) / 1000;
  // CPU time is what the rung costs whatever the priority and the load it ran under.
  if (cpuSeconds !== null) recordEncodeCost({ rung: rung.name, cpuSeconds, mediaSeconds });
  return { ...placeOnTimeline(request, written[0] ?? Buffer.alloc(0)), encodeSeconds };
};

/**
 * Several rungs of one segment (same asset, same index) from one ffmpeg run that decodes the source
 * window once: each rung's bytes are those of its own single-rung encode (buildMultiRungSegmentArgs).
 * Its CPU time is not any one rung's cost, so it is not recorded as one.
 */
export const encodeJointSegmentBytes = async (requests: readonly SegmentRequest[], attempt: WorkAttempt): Promise<EncodedSegment[]> => {
  const [first] = requests;
  if (!first) return [];
  const { assetId, plan, index } = first;
  const { window } = windowOf(first);
  const inputPath = await sourceInput(assetId);
  const overlays = await overlayImages(assetId, plan);
  const { written } = await encodeToMemory({
    assetId,
    args: buildMultiRungSegmentArgs({ inputPath, outputs: requests.map(({ rung }) => ({ rung, overlays })), ...window, sourceColour: plan.sourceColour }),
    outputs: requests.length,
    cancel: attempt.signal,
    what: `${requests.map(({ rung }) => rung.name).join(' + ')} segment ${index}`,
    yieldCpu: attempt.background,
    onInit: (output, init) => {
      const rung = requests[output]?.rung;
      if (rung) publishInitEarly(assetId, rung, init);
    },
  });
  return requests.map((request, output) => placeOnTimeline(request, written[output] ?? Buffer.alloc(0)));
};

/** Stores an encoded segment: its rung's init (once), the media file, the cache index, the bucket. */
export const storeEncodedSegment = async (
  request: SegmentRequest,
  { init, media }: EncodedSegment,
  target: string,
  log: { encodeSeconds?: number; background: boolean; together?: string[] },
): Promise<void> => {
  const { assetId, rung, index } = request;
  await publishInitOnce(assetId, rung, init);
  await publishFile(target, media);
  segmentCache().record(target, media.length);
  void recordEncodedSegment(request, media.length);
  // Nodes waiting for this encode (segment-lock.ts) are told it is done when this returns, and look
  // for it in the bucket then: the upload must have landed. A failed one only costs them an encode.
  await shareFile(target, media).catch((error: unknown) => getLogger().warn({ err: error, target }, 'upload to the bucket failed'));
  getLogger().debug(
    { assetId, rung: rung.name, index, ms: log.encodeSeconds === undefined ? undefined : Math.round(log.encodeSeconds * 1000), bytes: media.length, background: log.background, together: log.together },
    'segment encoded',
  );
};
