import { describe, expect, test } from 'vitest';
import { buildAudioSegmentDurations, AUDIO_SEGMENT_SECONDS } from './audio-plan';
import { buildSegmentPlan, encodeWindow } from './segment-plan';

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

describe('buildSegmentPlan', () => {
  test('2 s, 2 s, then 4 s segments on whole frames, covering the whole duration', () => {
    const plan = buildSegmentPlan({ duration: 17.063, frameRate: 30 });
    expect(plan.segments.map((segment) => segment.start)).toEqual([0, 2, 4, 8, 12, 16]);
    expect(plan.segments.at(-1)?.duration).toBeCloseTo(1.063, 6);
    expect(sum(plan.segments.map((segment) => segment.duration))).toBeCloseTo(17.063, 6);
  });

  test('boundaries fall on frames of an NTSC grid', () => {
    const frameRate = 30000 / 1001;
    const plan = buildSegmentPlan({ duration: 60, frameRate });
    for (const segment of plan.segments) {
      const frames = segment.start * frameRate;
      expect(Math.abs(frames - Math.round(frames))).toBeLessThan(1e-3);
    }
  });

  test('a tail shorter than half a second joins the previous segment', () => {
    const plan = buildSegmentPlan({ duration: 8.3, frameRate: 25 });
    expect(plan.segments.map((segment) => segment.start)).toEqual([0, 2, 4]);
    expect(plan.segments.at(-1)?.duration).toBeCloseTo(4.3, 6);
  });

  test('a clip shorter than one segment is one segment', () => {
    expect(buildSegmentPlan({ duration: 0.3, frameRate: 30 }).segments).toEqual([{ start: 0, duration: 0.3 }]);
  });

  test('time to plan does not depend on duration beyond the number of segments', () => {
    expect(buildSegmentPlan({ duration: 12 * 3600, frameRate: 30 }).segments).toHaveLength(2 + (12 * 3600 - 4) / 4);
  });
});

describe('encodeWindow', () => {
  const plan = buildSegmentPlan({ duration: 10, frameRate: 30 });
  test('windows start and end half a frame before boundaries and tile the timeline', () => {
    const windows = plan.segments.map((_, index) => encodeWindow(plan, index));
    expect(windows[0]).toEqual({ seekSeconds: 0, durationSeconds: expect.closeTo(2 - 1 / 60, 6), keyframeLookaheadSeconds: 0 });
    expect(windows[1]?.seekSeconds).toBeCloseTo(2 - 1 / 60, 6);
    for (let index = 1; index < windows.length; index++) {
      const previous = windows[index - 1];
      const current = windows[index];
      expect((previous?.seekSeconds ?? 0) + (previous?.durationSeconds ?? 0)).toBeCloseTo(current?.seekSeconds ?? -1, 6);
    }
    const last = windows.at(-1);
    expect((last?.seekSeconds ?? 0) + (last?.durationSeconds ?? 0)).toBeGreaterThan(10);
  });
  test('an index outside the plan is an error', () => {
    expect(() => encodeWindow(plan, 99)).toThrow(RangeError);
  });
  test('the seek looks ¾ frame past the cut only on a constant-frame-rate source, never for segment 0', () => {
    expect(plan.segments.map((_, index) => encodeWindow(plan, index).keyframeLookaheadSeconds)).toEqual(plan.segments.map(() => 0));
    const constant = buildSegmentPlan({ duration: 10, frameRate: 30, constantFrameRate: true });
    expect(encodeWindow(constant, 0).keyframeLookaheadSeconds).toBe(0);
    expect(encodeWindow(constant, 2).keyframeLookaheadSeconds).toBeCloseTo(0.75 / 30, 6);
    expect(encodeWindow(constant, 2).seekSeconds).toBe(encodeWindow(plan, 2).seekSeconds);
  });
});

describe('buildAudioSegmentDurations', () => {
  test('188 AAC frames per segment, the rest in the last', () => {
    expect(AUDIO_SEGMENT_SECONDS).toBeCloseTo(4.010667, 6);
    const durations = buildAudioSegmentDurations(17.0427);
    expect(durations).toHaveLength(5);
    expect(durations.slice(0, 4).every((duration) => duration === 4.010667)).toBe(true);
    expect(sum(durations)).toBeCloseTo(17.0427, 5);
  });
});
