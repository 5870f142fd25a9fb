import { describe, expect, test } from 'vitest';
import { parseCueTiming, parseTimestamp } from './cue-timing';

describe('parseTimestamp', () => {
  test('hours optional, `.` or `,`, short fields and fractions', () => {
    expect(parseTimestamp('01:02:03.456')).toBeCloseTo(3723.456, 9);
    expect(parseTimestamp('01:02:03,456')).toBeCloseTo(3723.456, 9);
    expect(parseTimestamp('02:03.456')).toBeCloseTo(123.456, 9);
    expect(parseTimestamp('100:00:00.000')).toBe(360_000);
    expect(parseTimestamp('0:0:1,5')).toBe(1.5);
    expect(parseTimestamp('00:00:01,05')).toBeCloseTo(1.05, 9);
  });

  test('anything else is not a timestamp', () => {
    for (const bad of ['', '00:00:01', '00:60:00.000', '00:00:60.000', '1.5', '00:00:01.0000', 'aa:bb:cc.ddd', '-00:00:01.000', '00:00:01.000x']) {
      expect(parseTimestamp(bad), bad).toBeNull();
    }
  });
});

describe('parseCueTiming', () => {
  test('with and without spaces around the arrow; the rest of the line is kept', () => {
    expect(parseCueTiming('00:00:01.000 --> 00:00:02.500 line:0 align:start', 3)).toEqual({ start: 1, end: 2.5, rest: 'line:0 align:start' });
    expect(parseCueTiming('00:00:01,000-->00:00:02,500', 3)).toEqual({ start: 1, end: 2.5, rest: '' });
  });

  test('unparsable timestamps and cues that end before they start name their line', () => {
    expect(() => parseCueTiming('00:00:01.000 --> 00:00:0x.000', 12)).toThrow(
      'line 12: "00:00:0x.000" in "00:00:01.000 --> 00:00:0x.000" is not a timestamp (expected hours:minutes:seconds.milliseconds, e.g. 00:01:02.500)',
    );
    expect(() => parseCueTiming('--> 00:00:01.000', 2)).toThrow(/^line 2: "" in/);
    expect(() => parseCueTiming('00:00:02.000 --> 00:00:01.000', 7)).toThrow('line 7: the cue ends (00:00:01.000) before or when it starts (00:00:02.000)');
    expect(() => parseCueTiming('00:00:02.000 --> 00:00:02.000', 7)).toThrow(/line 7: the cue ends/);
  });
});
