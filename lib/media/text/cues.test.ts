import { describe, expect, test } from 'vitest';
import { formatTimestamp, renderTranscript, renderWebVtt } from './cues';

describe('cues', () => {
  test('timestamps are HH:MM:SS.mmm, rounded to the millisecond', () => {
    expect(formatTimestamp(0)).toBe('00:00:00.000');
    expect(formatTimestamp(3661.2346)).toBe('01:01:01.235');
    expect(formatTimestamp(59.9996)).toBe('00:01:00.000');
  });

  test('WebVTT: signature, header lines, ids, settings; payloads cannot break the file', () => {
    const text = renderWebVtt(
      [
        { start: 1, end: 2.5, text: 'Hello\n\nworld', id: 'c1', settings: 'line:0' },
        { start: 3, end: 4, text: 'a --> b' },
        { start: 5, end: 6, text: '   ' },
      ],
      { header: ['X-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000'] },
    );
    expect(text).toBe(
      'WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000\n\nc1\n00:00:01.000 --> 00:00:02.500 line:0\nHello\nworld\n\n00:00:03.000 --> 00:00:04.000\na → b\n',
    );
  });

  test('transcript: one line per cue, markup and entities removed', () => {
    expect(renderTranscript([{ start: 0, end: 1, text: '<i>Hi</i> &amp; <b>bye</b>\nnow' }, { start: 1, end: 2, text: '<c></c>' }])).toBe('Hi & bye now\n');
    expect(renderTranscript([])).toBe('');
  });
});
