import { describe, expect, test } from 'vitest';
import { parseWebVtt } from './parse-webvtt';

describe('parseWebVtt', () => {
  test('ids, settings and markup kept; NOTE, STYLE and REGION blocks skipped', () => {
    const text = [
      'WEBVTT - a title',
      'Kind: captions',
      '',
      'REGION',
      'id:fred width:40%',
      '',
      'STYLE',
      '::cue { color: yellow }',
      '',
      'NOTE a comment',
      'that spans lines',
      '',
      'intro',
      '00:00:01.000 --> 00:00:02.000 line:0 align:start region:fred bogus',
      '<v Roger><i>Hello</i> &amp; welcome',
      'second line',
      '',
      '00:01.500 --> 00:03.000',
      'No hours',
      '',
      'NOTE',
      '',
      '01:00:00.000 --> 01:00:01.000 position:10%,line-left',
      'An hour in',
      '',
    ].join('\n');
    expect(parseWebVtt(text)).toEqual([
      { id: 'intro', start: 1, end: 2, settings: 'line:0 align:start', text: '<v Roger><i>Hello</i> &amp; welcome\nsecond line' },
      { start: 1.5, end: 3, text: 'No hours' },
      { start: 3600, end: 3601, settings: 'position:10%,line-left', text: 'An hour in' },
    ]);
  });

  test('a timing line right under the signature, and a timing line inside a payload starting another cue', () => {
    expect(parseWebVtt('WEBVTT\n00:00:01.000 --> 00:00:02.000\nOne\n00:00:02.000 --> 00:00:03.000\nTwo')).toEqual([
      { start: 1, end: 2, text: 'One' },
      { start: 2, end: 3, text: 'Two' },
    ]);
  });

  test('blocks without a timing line are skipped, as browsers skip them', () => {
    expect(parseWebVtt('WEBVTT\n\njust some words\nand more\n\n00:00:01.000 --> 00:00:02.000\nkept')).toEqual([{ start: 1, end: 2, text: 'kept' }]);
  });

  test('a cue without a payload is read with empty text (dropped later)', () => {
    expect(parseWebVtt('WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n')).toEqual([{ start: 1, end: 2, text: '' }]);
  });

  test('no signature, bad timestamps and reversed cues are errors at their line', () => {
    expect(() => parseWebVtt('WEBVTTX\n\n00:00:01.000 --> 00:00:02.000\nHi')).toThrow('line 1: a WebVTT file must start with "WEBVTT"');
    expect(() => parseWebVtt('WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nHi\n\nid\n00:00:03.000 --> 00:00:3.0.0\nHo')).toThrow(/^line 7: "00:00:3.0.0"/);
    expect(() => parseWebVtt('WEBVTT\n\n00:00:05.000 --> 00:00:04.000\nHi')).toThrow('line 3: the cue ends (00:00:04.000) before or when it starts (00:00:05.000)');
  });
});
