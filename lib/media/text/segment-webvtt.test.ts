import { describe, expect, test } from 'vitest';
import type { Cue } from './cues';
import { parseSubtitles } from './parse-subtitles';
import { cuesInSpan, segmentSpans, timestampMapLine, webVttSegment } from './segment-webvtt';

const cues: Cue[] = [
  { start: 0.5, end: 1.5, text: 'start' },
  { start: 1.8, end: 2.4, text: 'spans 0 and 1', id: 'span' },
  { start: 2, end: 3, text: 'on the boundary' },
  { start: 3.5, end: 9.5, text: 'spans 1, 2 and 3' },
  { start: 12, end: 13, text: 'past the end' },
];
const durations = [2, 2, 4, 2.5];

const segmentCues = (index: number) => {
  const text = webVttSegment({ cues, durations, index });
  if (text === null) return null;
  const parsed = parseSubtitles(text);
  return parsed.ok ? parsed.cues.map((cue) => cue.text) : [];
};

describe('webVttSegment', () => {
  test('spans follow the durations; the last runs on', () => {
    expect(segmentSpans(durations)).toEqual([
      { start: 0, end: 2 },
      { start: 2, end: 4 },
      { start: 4, end: 8 },
      { start: 8, end: Number.POSITIVE_INFINITY },
    ]);
    expect(segmentSpans([])).toEqual([]);
  });

  test('every cue overlapping [start, end), repeated in each segment it overlaps', () => {
    expect(segmentCues(0)).toEqual(['start', 'spans 0 and 1']);
    expect(segmentCues(1)).toEqual(['spans 0 and 1', 'on the boundary', 'spans 1, 2 and 3']);
    expect(segmentCues(2)).toEqual(['spans 1, 2 and 3']);
    expect(segmentCues(3)).toEqual(['spans 1, 2 and 3', 'past the end']);
    expect(segmentCues(4)).toBeNull();
  });

  test('a cue ending exactly at a boundary is not in the next segment', () => {
    expect(cuesInSpan([{ start: 1, end: 2, text: 'a' }], { start: 2, end: 4 })).toEqual([]);
    expect(cuesInSpan([{ start: 1, end: 2.001, text: 'a' }], { start: 2, end: 4 })).toHaveLength(1);
  });

  test('the header maps the asset timeline; cue times stay on it', () => {
    expect(timestampMapLine()).toBe('X-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000');
    expect(webVttSegment({ cues, durations, index: 0 })).toBe(
      'WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000\n\n00:00:00.500 --> 00:00:01.500\nstart\n\nspan\n00:00:01.800 --> 00:00:02.400\nspans 0 and 1\n',
    );
    expect(webVttSegment({ cues: [], durations, index: 2 })).toBe('WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000\n');
  });
});
