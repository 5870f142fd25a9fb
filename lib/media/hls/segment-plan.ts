// The segment plan: where every video segment starts and ends, fixed before anything is encoded and
// shared by every rung, so a player can switch rungs at any boundary. Boundaries sit on whole
// frames of the source's frame grid; the first two segments are short so playback starts fast.

export type PlannedSegment = { start: number; duration: number };
export type SegmentPlan = {
  frameRate: number;
  duration: number;
  segments: PlannedSegment[];
  // Every source frame sits on the frame-rate grid (absent in plans stored before it was recorded).
  constantFrameRate?: boolean;
};

export const FIRST_SEGMENT_SECONDS = 2;
export const SHORT_SEGMENT_COUNT = 2;
export const SEGMENT_SECONDS = 4;
const MIN_TAIL_SECONDS = 0.5;

const round6 = (value: number) => Math.round(value * 1e6) / 1e6;

export const buildSegmentPlan = ({
  duration,
  frameRate,
  constantFrameRate = false,
}: {
  duration: number;
  frameRate: number;
  constantFrameRate?: boolean;
}): SegmentPlan => {
  const frameDuration = 1 / frameRate;
  const totalFrames = Math.max(1, Math.round(duration * frameRate));
  const boundaries: number[] = [0];
  let frame = 0;
  for (let index = 0; ; index++) {
    const seconds = index < SHORT_SEGMENT_COUNT ? FIRST_SEGMENT_SECONDS : SEGMENT_SECONDS;
    frame += Math.max(1, Math.round(seconds * frameRate));
    if (frame >= totalFrames) break;
    boundaries.push(frame);
  }
  // A very short last segment is merged into the one before it.
  const lastBoundary = boundaries.at(-1) ?? 0;
  if (boundaries.length > 1 && (totalFrames - lastBoundary) * frameDuration < MIN_TAIL_SECONDS) boundaries.pop();

  const segments = boundaries.map((startFrame, index) => {
    const start = startFrame * frameDuration;
    const next = boundaries[index + 1];
    const end = next === undefined ? duration : next * frameDuration;
    return { start: round6(start), duration: round6(end - start) };
  });
  return { frameRate, duration: round6(duration), segments, constantFrameRate };
};

export type EncodeWindow = { seekSeconds: number; durationSeconds: number; keyframeLookaheadSeconds: number };

// What to ask ffmpeg for to produce segment `index`: frames whose timestamps fall in
// [start − ½ frame, next start − ½ frame). Cutting between two frames, not onto one, makes the
// choice of the first frame immune to timestamp jitter, and the same cut points are used for the
// end of one segment and the start of the next, so every frame lands in exactly one segment.
//
// An input seek lands on the last keyframe at or before the seek point, so seeking to the cut
// would decode the whole GOP before the boundary even when the boundary frame is itself a keyframe
// (a 2 s GOP source: about a fifth of a cold segment's time). On a constant-frame-rate source the
// only frame within ¾ frame after the cut is the boundary frame, so the seek may look that far
// ahead (`keyframeLookaheadSeconds`): it lands on the boundary frame when that is a keyframe, and
// on an earlier one otherwise; the frames before the cut are dropped either way.
export const encodeWindow = (plan: SegmentPlan, index: number): EncodeWindow => {
  const segment = plan.segments[index];
  if (!segment) throw new RangeError(`segment ${index} is not in the plan`);
  const halfFrame = 0.5 / plan.frameRate;
  const seekSeconds = index === 0 ? 0 : segment.start - halfFrame;
  const next = plan.segments[index + 1];
  const endSeconds = next ? next.start - halfFrame : plan.duration + halfFrame;
  const lookahead = index > 0 && plan.constantFrameRate === true ? 1.5 * halfFrame : 0;
  return { seekSeconds: round6(seekSeconds), durationSeconds: round6(endSeconds - seekSeconds), keyframeLookaheadSeconds: round6(lookahead) };
};
