import { describe, expect, test } from 'vitest';
import { clipRangeQuery, parseClipRange, segmentsInRange } from './instant-clip';

describe('parseClipRange', () => {
  test('no values: no range', () => {
    expect(parseClipRange(undefined, null)).toEqual({ ok: true, range: null });
    expect(parseClipRange('', '')).toEqual({ ok: true, range: null });
  });
  test('query strings and claim numbers', () => {
    expect(parseClipRange('2.5', undefined)).toEqual({ ok: true, range: { start: 2.5, end: null } });
    expect(parseClipRange(1, 7)).toEqual({ ok: true, range: { start: 1, end: 7 } });
  });
  test('rejects garbage, negatives and an end not after the start', () => {
    expect(parseClipRange('abc', undefined).ok).toBe(false);
    expect(parseClipRange('-1', undefined).ok).toBe(false);
    expect(parseClipRange(undefined, '1e9').ok).toBe(false);
    expect(parseClipRange('5', '5').ok).toBe(false);
  });
});

describe('segmentsInRange', () => {
  const durations = [2, 2, 4, 4, 4, 1.5]; // starts 0 2 4 8 12 16, ends at 17.5
  test('keeps every segment that overlaps the range', () => {
    expect(segmentsInRange(durations, { start: 3, end: 9 })).toEqual({ from: 1, to: 4 });
    expect(segmentsInRange(durations, { start: 4, end: 8 })).toEqual({ from: 2, to: 3 });
  });
  test('open ends', () => {
    expect(segmentsInRange(durations, { start: 12.1, end: null })).toEqual({ from: 4, to: 6 });
    expect(segmentsInRange(durations, { start: null, end: 2 })).toEqual({ from: 0, to: 1 });
  });
  test('a range past the end keeps nothing', () => {
    expect(segmentsInRange(durations, { start: 18, end: 20 })).toEqual({ from: 0, to: 0 });
  });
});

test('clipRangeQuery', () => {
  expect(clipRangeQuery(null)).toBe('');
  expect(clipRangeQuery({ start: 1.5, end: null })).toBe('asset_start_time=1.5');
  expect(clipRangeQuery({ start: 0, end: 4 })).toBe('asset_start_time=0&asset_end_time=4');
});
