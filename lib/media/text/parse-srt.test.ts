import { describe, expect, test } from 'vitest';
import { parseSrt } from './parse-srt';
import { srtTextToWebVtt } from './srt-markup';

describe('parseSrt', () => {
  test('counters dropped, `,` or `.`, no hours, coordinates ignored, multi-line text', () => {
    const text = [
      '1',
      '00:00:01,000 --> 00:00:02,500',
      'First line',
      'second line',
      '',
      '2',
      '00:03.000 --> 00:04.250  X1:40 X2:600 Y1:20 Y2:50',
      'Dot and no hours',
      '',
      '',
    ].join('\n');
    expect(parseSrt(text)).toEqual([
      { start: 1, end: 2.5, text: 'First line\nsecond line' },
      { start: 3, end: 4.25, text: 'Dot and no hours' },
    ]);
  });

  test('a missing blank line before a counter, and blank lines inside a cue', () => {
    const text = '1\n00:00:01,000 --> 00:00:02,000\nOne\n2\n00:00:02,000 --> 00:00:03,000\nTwo\n\nstill two\n\n3\n00:00:03,000 --> 00:00:04,000\nThree';
    expect(parseSrt(text)).toEqual([
      { start: 1, end: 2, text: 'One' },
      { start: 2, end: 3, text: 'Two\n\nstill two' },
      { start: 3, end: 4, text: 'Three' },
    ]);
  });

  test('bad timings name their line', () => {
    expect(() => parseSrt('1\n00:00:01,000 --> 00:00:02,000\nOne\n\n2\n00:00:03 --> 00:00:04,000\nTwo')).toThrow(/^line 6: "00:00:03" in "00:00:03 --> 00:00:04,000" is not a timestamp/);
    expect(() => parseSrt('1\n00:00:04,000 --> 00:00:03,000\nOne')).toThrow('line 2: the cue ends (00:00:03,000) before or when it starts (00:00:04,000)');
  });
});

describe('srtTextToWebVtt', () => {
  test('<b>, <i>, <u> kept (lower-cased, attributes dropped), <font> stripped, <br> a line break', () => {
    expect(srtTextToWebVtt('<B>bold</B> <i class="x">it</i> <u>under</u>')).toEqual({ text: '<b>bold</b> <i>it</i> <u>under</u>' });
    expect(srtTextToWebVtt('<font color="#ff0000" face="Arial">red</font> text')).toEqual({ text: 'red text' });
    expect(srtTextToWebVtt('one<br/>two')).toEqual({ text: 'one\ntwo' });
  });

  test('stray < > & are escaped, entities left alone', () => {
    expect(srtTextToWebVtt('a < b && c > d')).toEqual({ text: 'a &lt; b &amp;&amp; c &gt; d' });
    expect(srtTextToWebVtt('Tom &amp; Jerry &lt;3 &#9834; &nbsp;')).toEqual({ text: 'Tom &amp; Jerry &lt;3 &#9834; &nbsp;' });
    expect(srtTextToWebVtt('<script>alert(1)</script>')).toEqual({ text: '&lt;script&gt;alert(1)&lt;/script&gt;' });
    expect(srtTextToWebVtt('1 <2> 3')).toEqual({ text: '1 &lt;2&gt; 3' });
  });

  test('SSA override codes removed; a top alignment becomes line:0', () => {
    expect(srtTextToWebVtt('{\\an8}At the top')).toEqual({ text: 'At the top', settings: 'line:0' });
    expect(srtTextToWebVtt('{\\i1}slanted{\\i0}')).toEqual({ text: 'slanted' });
  });
});
