import { describe, expect, test } from 'vitest';
import { ApiError } from '../errors/api-error';
import { parseFilters, parseTimeframe } from './data-query';
import { measure } from './measurements';

describe('parseTimeframe', () => {
  const now = 1_800_000_000_000;
  test('24 hours back by default, durations and epoch pairs', () => {
    expect(parseTimeframe(undefined, now)).toEqual([1_800_000_000 - 86_400, 1_800_000_000]);
    expect(parseTimeframe(['7:days'], now)).toEqual([1_800_000_000 - 7 * 86_400, 1_800_000_000]);
    expect(parseTimeframe(['30:minutes'], now)).toEqual([1_800_000_000 - 1_800, 1_800_000_000]);
    expect(parseTimeframe(['1498953600', '1498867200'], now)).toEqual([1_498_867_200, 1_498_953_600]);
  });
  test.each([[['24:weeks']], [['hours']], [['0:hours']], [['1', '2', '3']], [['1', 'x']]])('refuses %j', (timeframe) => {
    expect(() => parseTimeframe(timeframe, now)).toThrow(ApiError);
  });
});

describe('parseFilters', () => {
  test('dimension:value and !dimension:value; values may hold colons', () => {
    expect(parseFilters(['asset_id:abc', '!browser:Chrome', 'video_title:a:b', 'playback_failure:true'])).toEqual([
      { column: 'assetId', value: 'abc', exclude: false },
      { column: 'viewerBrowser', value: 'Chrome', exclude: true },
      { column: 'videoTitle', value: 'a:b', exclude: false },
      { column: 'playbackFailure', value: true, exclude: false },
    ]);
  });
  test.each(['country:US', 'asset_id', ':x', 'playback_failure:maybe'])('refuses %s', (filter) => {
    expect(() => parseFilters([filter])).toThrow(ApiError);
  });
});

describe('measure', () => {
  const values = [5, null, 1, 3, 2, 4, null];
  test('each measurement over the views that have a value', () => {
    expect(measure(values, 'count')).toBe(5);
    expect(measure(values, 'sum')).toBe(15);
    expect(measure(values, 'avg')).toBe(3);
    expect(measure(values, 'median')).toBe(3);
    expect(measure(values, '95th')).toBe(5);
    expect(measure([10, 20, 30, 40], 'median')).toBe(20);
  });
  test('no value: null, except a count or a sum', () => {
    expect(measure([null], 'median')).toBeNull();
    expect(measure([], 'avg')).toBeNull();
    expect(measure([], 'sum')).toBe(0);
    expect(measure([], 'count')).toBe(0);
  });
});
