import { describe, expect, test } from 'vitest';
import { renderWebVtt } from './cues';
import { detectSubtitleFormat, parseSubtitleFile, parseSubtitles } from './parse-subtitles';

describe('detectSubtitleFormat', () => {
  test('by content, not by name', () => {
    expect(detectSubtitleFormat('WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nHi')).toBe('webvtt');
    expect(detectSubtitleFormat('WEBVTT')).toBe('webvtt');
    expect(detectSubtitleFormat('1\n00:00:01,000 --> 00:00:02,000\nHi')).toBe('srt');
    // A WebVTT body without its signature is read as SRT, which accepts its timestamps.
    expect(detectSubtitleFormat('00:00:01.000 --> 00:00:02.000\nHi')).toBe('srt');
    expect(detectSubtitleFormat('<?xml version="1.0"?><tt><!-- a --> </tt>')).toBeNull();
    expect(detectSubtitleFormat('just words')).toBeNull();
  });
});

describe('parseSubtitles', () => {
  test('BOM and CRLF; cues sorted by start; empty cues dropped; repeated ids made unique', () => {
    const srt = '\uFEFF3\r\n00:00:05,000 --> 00:00:06,000\r\nThird\r\n\r\n1\r\n00:00:01,000 --> 00:00:02,000\r\nFirst\r\n\r\n2\r\n00:00:03,000 --> 00:00:04,000\r\n\r\n';
    expect(parseSubtitles(srt)).toEqual({
      ok: true,
      format: 'srt',
      cues: [
        { start: 1, end: 2, text: 'First' },
        { start: 5, end: 6, text: 'Third' },
      ],
    });
    const vtt = 'WEBVTT\r\rx\r00:00:02.000 --> 00:00:03.000\rB\r\rx\r00:00:01.000 --> 00:00:04.000\rA\r\rx\r00:00:01.000 --> 00:00:02.000\rA0\r';
    expect(parseSubtitles(vtt)).toEqual({
      ok: true,
      format: 'webvtt',
      cues: [
        { id: 'x', start: 1, end: 2, text: 'A0' },
        { start: 1, end: 4, text: 'A' },
        { start: 2, end: 3, text: 'B' },
      ],
    });
  });

  test('what is wrong, and where', () => {
    expect(parseSubtitles('')).toEqual({ ok: false, reason: 'the file is empty' });
    expect(parseSubtitles(' \n\n')).toEqual({ ok: false, reason: 'the file is empty' });
    expect(parseSubtitles('WEBVTT\n\nNOTE nothing here\n')).toEqual({ ok: false, reason: 'the WebVTT file has no cues with text' });
    expect(parseSubtitles('1\n00:00:01,000 --> 00:00:02,000\n\n')).toEqual({ ok: false, reason: 'the SRT file has no cues with text' });
    expect(parseSubtitles('Hello there, this is a letter.\n')).toEqual({
      ok: false,
      reason: 'the file is neither WebVTT (it does not start with "WEBVTT") nor SRT (it has no timing line like "00:00:01,000 --> 00:00:04,000")',
    });
    expect(parseSubtitles('<!DOCTYPE html><html><!-- x --></html>')).toEqual({ ok: false, reason: 'the file is an HTML page, not WebVTT or SRT' });
    expect(parseSubtitles('[Script Info]\nTitle: x\n')).toEqual({ ok: false, reason: 'the file is SSA/ASS subtitles, not WebVTT or SRT' });
    expect(parseSubtitles('1\n00:00:01,000 --> 00:00:02,000\nOne\n\n2\n00:00:0a,000 --> 00:00:03,000\nTwo\n')).toEqual({
      ok: false,
      reason: expect.stringMatching(/^line 6: "00:00:0a,000" in "00:00:0a,000 --> 00:00:03,000" is not a timestamp/),
    });
  });

  test('a file from bytes: decoding problems come through', () => {
    expect(parseSubtitleFile(Buffer.from([0, 1, 2, 3, 255, 0, 7]))).toMatchObject({ ok: false, reason: expect.stringMatching(/^the file is not text/) });
    expect(parseSubtitleFile(Buffer.from('1\n00:00:01,000 --> 00:00:02,000\nCaf\xe9\n', 'latin1'))).toEqual({
      ok: true,
      format: 'srt',
      cues: [{ start: 1, end: 2, text: 'Café' }],
    });
  });

  test('what is stored reads back as the same cues', () => {
    const parsed = parseSubtitles('1\n00:00:01,000 --> 00:00:02,000\n{\\an8}<b>Tom & Jerry</b> <font color=red>x</font>\n\n2\n00:01:01,234 --> 01:00:00,000\nLong\n');
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.cues[0]).toEqual({ start: 1, end: 2, text: '<b>Tom &amp; Jerry</b> x', settings: 'line:0' });
    expect(parseSubtitles(renderWebVtt(parsed.cues))).toEqual({ ok: true, format: 'webvtt', cues: parsed.cues });
  });
});
