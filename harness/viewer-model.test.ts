import { describe, expect, test } from 'vitest';
import { audioSegmentsFor, DEFAULT_PACING, msUntilNextFetch, nextRungIndex, PlaybackTimeline, timedSegments } from './viewer-model';

const timeline = (durationSeconds = 30) => new PlaybackTimeline({ durationSeconds, startupBufferSeconds: 10, createdAtMs: 1_000 });

describe('PlaybackTimeline', () => {
  test('starts once 10 s are buffered, and the startup time runs from its creation', () => {
    const playback = timeline();
    playback.append(2_000, 4);
    playback.append(3_000, 8);
    expect(playback.started).toBe(false);
    playback.append(3_500, 12);
    expect(playback.started).toBe(true);
    expect(playback.startupMs).toBe(2_500);
    playback.advance(5_500);
    expect(playback.playheadSeconds).toBeCloseTo(2);
    expect(playback.bufferAheadSeconds).toBeCloseTo(10);
  });

  test('a short asset starts once it is buffered whole', () => {
    const playback = timeline(6);
    playback.append(2_000, 6);
    expect(playback.started).toBe(true);
    playback.advance(20_000);
    expect(playback.ended).toBe(true);
    expect(playback.endedAtMs).toBe(8_000);
    expect(playback.stalls).toBe(0);
  });

  test('a stall starts when the playhead reaches the end of the buffer and lasts until the next segment', () => {
    const playback = timeline();
    playback.append(1_000, 12); // starts at once
    playback.advance(14_000); // 13 s of wall time, 12 s of media: stalled since 13_000
    expect(playback.stalled).toBe(true);
    expect(playback.stalls).toBe(1);
    expect(playback.playheadSeconds).toBe(12);
    expect(playback.stalledSeconds).toBeCloseTo(1);
    playback.append(15_500, 16);
    expect(playback.stalled).toBe(false);
    expect(playback.stalledSeconds).toBeCloseTo(2.5);
    playback.advance(16_500);
    expect(playback.playheadSeconds).toBeCloseTo(13);
    // A second stall is counted as a second one; time before the start never counts.
    playback.advance(25_000);
    expect(playback.stalls).toBe(2);
    expect(playback.stalledSeconds).toBeCloseTo(2.5 + (25_000 - 19_500) / 1000);
  });

  test('waiting for the start is not a stall, and reaching the end is not one either', () => {
    const playback = timeline(20);
    playback.append(30_000, 4);
    playback.advance(60_000);
    expect(playback.stalls).toBe(0);
    playback.append(61_000, 20);
    expect(playback.startupMs).toBe(60_000);
    playback.advance(100_000);
    expect(playback.ended).toBe(true);
    expect(playback.stalls).toBe(0);
    expect(playback.stalledSeconds).toBe(0);
  });

  test('the clock never runs backwards', () => {
    const playback = timeline();
    playback.append(1_000, 12);
    playback.advance(5_000);
    playback.advance(3_000);
    expect(playback.playheadSeconds).toBeCloseTo(4);
  });
});

describe('msUntilNextFetch', () => {
  test('as fast as possible before the start and while stalled', () => {
    const playback = timeline();
    playback.append(1_000, 8);
    expect(msUntilNextFetch(playback, 4, DEFAULT_PACING)).toBe(0);
    playback.append(2_000, 12);
    playback.advance(20_000);
    expect(playback.stalled).toBe(true);
    expect(msUntilNextFetch(playback, 4, DEFAULT_PACING)).toBe(0);
  });

  test('after the start, real-time pace: the next segment once less than 10 s are ahead', () => {
    const playback = timeline(60);
    playback.append(1_000, 16);
    expect(msUntilNextFetch(playback, 4, DEFAULT_PACING)).toBeCloseTo(6_000);
    playback.advance(5_000);
    expect(msUntilNextFetch(playback, 4, DEFAULT_PACING)).toBeCloseTo(2_000);
    playback.advance(8_000);
    expect(msUntilNextFetch(playback, 4, DEFAULT_PACING)).toBe(0);
  });

  test('never more than 30 s ahead, whatever the pace asks', () => {
    const playback = timeline(60);
    playback.append(1_000, 28);
    expect(msUntilNextFetch(playback, 4, { ...DEFAULT_PACING, paceAheadSeconds: 40 })).toBeCloseTo(2_000);
  });
});

describe('nextRungIndex', () => {
  test('drops a rung above 80 % of the segment duration, climbs below 30 %, stays between', () => {
    expect(nextRungIndex(2, 5, 3.3, 4)).toBe(1);
    expect(nextRungIndex(2, 5, 3.2, 4)).toBe(2);
    expect(nextRungIndex(2, 5, 1.3, 4)).toBe(2);
    expect(nextRungIndex(2, 5, 1.1, 4)).toBe(3);
  });

  test('stays within the ladder', () => {
    expect(nextRungIndex(0, 5, 10, 4)).toBe(0);
    expect(nextRungIndex(4, 5, 0.01, 4)).toBe(4);
  });
});

describe('audioSegmentsFor', () => {
  const audio = timedSegments([4.011, 4.011, 4.011, 4.011, 1.5]);
  const video = timedSegments([2, 2, 4, 4, 4, 1.5]);

  test('each video segment brings the audio segments that start before it ends, once', () => {
    expect(audioSegmentsFor(video[0]!, audio, 0)).toEqual([0]);
    expect(audioSegmentsFor(video[1]!, audio, 1)).toEqual([]);
    expect(audioSegmentsFor(video[2]!, audio, 1)).toEqual([1]);
    expect(audioSegmentsFor(video[3]!, audio, 2)).toEqual([2]);
    expect(audioSegmentsFor(video[4]!, audio, 3)).toEqual([3]);
    expect(audioSegmentsFor(video[5]!, audio, 4)).toEqual([4]);
  });

  test('segment starts add up the listed durations', () => {
    expect(video.map((segment) => segment.startSeconds)).toEqual([0, 2, 4, 8, 12, 16]);
  });
});
