import { describe, expect, test } from 'vitest';
import { renderWebVtt } from '../../lib/media/text/cues';
import { timestampMapLine } from '../../lib/media/text/segment-webvtt';
import { parseWebVtt } from '../webvtt';
import { cueTimings, spreadOf, subtitlesPlaylistUrl, type ListedSegment } from './live-captions';

// The server's own WebVTT writer, as live-captions.ts (the server's) renders a segment.
const segmentText = (mpegts: number, cues: Array<{ start: number; end: number; text: string }>) => renderWebVtt(cues, { header: [timestampMapLine(mpegts)] });

const segment = (overrides: Partial<ListedSegment> & Pick<ListedSegment, 'msn' | 'startSeconds' | 'listedAtMs'>): ListedSegment => ({
  durationSeconds: 1,
  mpegtsSeconds: 0,
  cues: [],
  afterStop: false,
  ...overrides,
});

describe('parseWebVtt', () => {
  test('reads the timestamp map and every cue, two-line cues joined', () => {
    const text = segmentText(90_000, [
      { start: 0.5, end: 2.25, text: 'good morning everyone' },
      { start: 62.1, end: 3_725.5, text: 'and thank you\nfor joining us' },
    ]);
    expect(parseWebVtt(text)).toEqual({
      mpegtsSeconds: 1,
      cues: [
        { start: 0.5, end: 2.25, text: 'good morning everyone' },
        { start: 62.1, end: 3_725.5, text: 'and thank you for joining us' },
      ],
    });
  });

  test('an empty segment has no cues; without a timestamp map the MPEGTS is unknown', () => {
    expect(parseWebVtt(segmentText(0, []))).toEqual({ mpegtsSeconds: 0, cues: [] });
    expect(parseWebVtt('WEBVTT\n\n00:01.000 --> 00:02.000 align:start\nhello\n')).toEqual({ mpegtsSeconds: null, cues: [{ start: 1, end: 2, text: 'hello' }] });
  });
});

test('subtitlesPlaylistUrl resolves the EXT-X-MEDIA URI against the multivariant playlist', () => {
  const multivariant = [
    '#EXTM3U',
    '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English (generated)",AUTOSELECT=YES,DEFAULT=NO,FORCED=NO,LANGUAGE="en",URI="abc/subtitles-generated.m3u8"',
    '#EXT-X-STREAM-INF:BANDWIDTH=3500000,SUBTITLES="subs"',
    'abc/source.m3u8',
  ].join('\n');
  expect(subtitlesPlaylistUrl('http://127.0.0.1:3000/abc.m3u8', multivariant)).toBe('http://127.0.0.1:3000/abc/subtitles-generated.m3u8');
  expect(subtitlesPlaylistUrl('http://127.0.0.1:3000/abc.m3u8', '#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nabc/source.m3u8')).toBeNull();
});

describe('cueTimings', () => {
  const originMs = 1_000_000;

  test('each cue at its first listing, timed from when its words were said on the publisher clock', () => {
    const spanning = { start: 1.5, end: 2.5, text: 'video uploads' };
    const timings = cueTimings(
      [
        segment({ msn: 1, startSeconds: 1, listedAtMs: originMs + 4_000, mpegtsSeconds: 0.5, cues: [spanning] }),
        // The same cue again in the next segment (it spans the boundary): not a second cue.
        segment({ msn: 2, startSeconds: 2, listedAtMs: originMs + 5_000, mpegtsSeconds: 0.5, cues: [spanning, { start: 2.6, end: 2.9, text: 'captions' }] }),
      ],
      originMs,
    );
    expect(timings).toEqual([
      { ...spanning, msn: 1, late: false, afterStop: false, fromEndSeconds: 1, fromStartSeconds: 2 },
      { start: 2.6, end: 2.9, text: 'captions', msn: 2, late: false, afterStop: false, fromEndSeconds: 1.6, fromStartSeconds: 1.9 },
    ]);
  });

  test('a cue listed in a segment that starts after it does is late; order is the order said', () => {
    const timings = cueTimings(
      [
        segment({ msn: 3, startSeconds: 3, listedAtMs: originMs + 7_000, cues: [{ start: 0.2, end: 2.9, text: 'good morning' }, { start: 3.1, end: 3.8, text: 'everyone' }] }),
        segment({ msn: 4, startSeconds: 4, listedAtMs: originMs + 8_000, afterStop: true, cues: [{ start: 4.0, end: 4.5, text: 'today' }] }),
      ],
      originMs,
    );
    expect(timings.map(({ text, late, afterStop }) => ({ text, late, afterStop }))).toEqual([
      { text: 'good morning', late: true, afterStop: false },
      { text: 'everyone', late: false, afterStop: false },
      { text: 'today', late: false, afterStop: true },
    ]);
  });
});

test('spreadOf: median, nearest-rank p90 and max, none for no values', () => {
  expect(spreadOf([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])).toEqual({ median: 5.5, p90: 9, max: 10 });
  expect(spreadOf([])).toEqual({ median: null, p90: null, max: null });
});
