// Which frame "the frame at time t" is, in terms ffmpeg understands. ffmpeg's accurate input seek
// (`-ss` before `-i`) decodes from the keyframe before the seek point and returns the first frame
// whose timestamp is at or after it, i.e. the frame *after* t whenever t falls between two frames.
// Seeking to just under one frame duration before t makes that first frame the one on screen at t.

// Times within a millisecond before a frame count as that frame (t=1.0999 at 10 fps is frame 1.1),
// so rounding in a caller's arithmetic never selects the previous frame.
const FRAME_TOLERANCE_SECONDS = 0.001;

const round6 = (value: number) => Math.round(value * 1e6) / 1e6;

/** The start of the last frame: later times show it (a thumbnail past the end is the last frame). */
export const lastFrameTime = ({ duration, frameRate }: { duration: number; frameRate: number }): number =>
  round6(Math.max(0, duration - 1 / frameRate));

/** The time a request shows, clamped to [0, last frame]. */
export const clampToVideo = (time: number, video: { duration: number; frameRate: number }): number =>
  round6(Math.min(Math.max(0, time), lastFrameTime(video)));

/** Where to seek so the first decoded frame is the one displayed at `time`. */
export const frameSeekSeconds = (time: number, video: { duration: number; frameRate: number }): number =>
  round6(Math.max(0, clampToVideo(time, video) + FRAME_TOLERANCE_SECONDS - 1 / video.frameRate));
