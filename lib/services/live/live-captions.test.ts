import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { LiveCaptionsTrack } from './live-captions';

const T0 = Date.UTC(2026, 11, 6, 12, 0, 0);
const HOLD_BACK = 3;

const segment = (msn: number, connection = 0, discontinuity = false) => ({
  msn,
  connection,
  durationSeconds: 1,
  programDateTime: new Date(T0 + msn * 1000),
  discontinuity,
});

describe('LiveCaptionsTrack', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(T0);
  });
  afterEach(() => vi.useRealTimers());

  test('a segment waits until the recogniser has answered past its end; then its cues, mapped onto the media clock', () => {
    const track = new LiveCaptionsTrack(HOLD_BACK, 1);
    track.openConnection(0, { captioned: true });
    track.setMediaStart(0, 2);
    track.addSegment(segment(0));
    track.addSegment(segment(1));
    expect(track.listed).toHaveLength(0);
    track.addCues(0, [{ start: 0.2, end: 1.4, text: 'good morning everyone' }], 1.4);
    // Heard up to 1.4 s: segment 0 (0–1 s) is decided, segment 1 (1–2 s) not yet.
    expect(track.listed.map((listed) => listed.msn)).toEqual([0]);
    expect(track.segmentText(0)).toBe('WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:180000,LOCAL:00:00:00.000\n\n00:00:00.200 --> 00:00:01.400\ngood morning everyone\n');
    track.addCues(0, [{ start: 1.6, end: 2.5, text: 'and thank you' }], 2.5);
    expect(track.listed.map((listed) => listed.msn)).toEqual([0, 1]);
    // The cue over the boundary is in both segments (players drop the repeat).
    expect(track.segmentText(1)).toContain('good morning everyone');
    expect(track.segmentText(1)).toContain('and thank you');
  });

  test('silence: listed empty hold-back seconds after the segment ended; a cue heard later rides in the next one', () => {
    const track = new LiveCaptionsTrack(HOLD_BACK, 1);
    track.openConnection(0, { captioned: true });
    track.addSegment(segment(0));
    vi.advanceTimersByTime(1000 + HOLD_BACK * 1000 - 10);
    expect(track.listed).toHaveLength(0);
    vi.advanceTimersByTime(20);
    expect(track.listed.map((listed) => listed.msn)).toEqual([0]);
    expect(track.segmentText(0)).not.toContain('-->');
    track.addCues(0, [{ start: 0.5, end: 0.9, text: 'late words' }], 0.9);
    track.addSegment(segment(1));
    track.addCues(0, [], 2.1);
    expect(track.segmentText(1)).toContain('00:00:00.500 --> 00:00:00.900\nlate words');
  });

  test('a connection without a recogniser (a slate) is listed at once; the discontinuity and dates carry over; end() lists the rest', () => {
    const track = new LiveCaptionsTrack(HOLD_BACK, 1);
    track.openConnection(0, { captioned: true });
    track.addSegment(segment(0));
    track.openConnection(1, { captioned: false });
    track.addSegment(segment(1, 1, true));
    expect(track.listed).toHaveLength(0);
    track.finishConnection(0);
    expect(track.entries(0)).toEqual([
      { msn: 0, durationSeconds: 1, programDateTime: new Date(T0), discontinuity: false, uri: 'subtitles-generated/0.vtt' },
      { msn: 1, durationSeconds: 1, programDateTime: new Date(T0 + 1000), discontinuity: true, uri: 'subtitles-generated/1.vtt' },
    ]);
    track.openConnection(2, { captioned: true });
    track.addSegment(segment(2, 2, true));
    track.end();
    expect(track.isEnded).toBe(true);
    expect(track.listed.map((listed) => listed.msn)).toEqual([0, 1, 2]);
    expect(track.segmentText(7)).toBeNull();
  });
});
