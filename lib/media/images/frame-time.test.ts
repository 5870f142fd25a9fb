import { describe, expect, test } from 'vitest';
import { clampToVideo, frameSeekSeconds, lastFrameTime } from './frame-time';

// 10 fps, 5 s: frames at 0.0, 0.1, … 4.9. ffmpeg returns the first frame at or after the seek point,
// so the frame chosen for a seek S is the first multiple of 0.1 that is >= S.
const video = { duration: 5, frameRate: 10 };
const firstFrameAtOrAfter = (seek: number) => Math.ceil(Math.round(seek * 1e6) / 1e5) / 10;

describe('frameSeekSeconds', () => {
  test('selects the frame displayed at t, not the next one', () => {
    expect(firstFrameAtOrAfter(frameSeekSeconds(1.0, video))).toBe(1.0);
    expect(firstFrameAtOrAfter(frameSeekSeconds(1.05, video))).toBe(1.0);
    expect(firstFrameAtOrAfter(frameSeekSeconds(1.09, video))).toBe(1.0);
    expect(firstFrameAtOrAfter(frameSeekSeconds(0.95, video))).toBe(0.9);
  });

  test('a time a hair before a frame counts as that frame', () => {
    expect(firstFrameAtOrAfter(frameSeekSeconds(1.0999, video))).toBe(1.1);
  });

  test('the start is frame 0 and never a negative seek', () => {
    expect(frameSeekSeconds(0, video)).toBe(0);
    expect(frameSeekSeconds(0.05, video)).toBe(0);
  });

  test('times past the end select the last frame', () => {
    expect(lastFrameTime(video)).toBe(4.9);
    expect(clampToVideo(60, video)).toBe(4.9);
    expect(firstFrameAtOrAfter(frameSeekSeconds(60, video))).toBe(4.9);
    expect(firstFrameAtOrAfter(frameSeekSeconds(4.95, video))).toBe(4.9);
  });
});
