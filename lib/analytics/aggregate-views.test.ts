import { describe, expect, test } from 'vitest';
import { ApiError } from '../errors/api-error';
import { bucketStarts, computeMetric, defaultGranularity, measurementFor, metricDefinition, negativeImpactRanks } from './aggregate-views';
import type { MetricView } from './metric-definitions';

const view = (overrides: Partial<MetricView>): MetricView => ({
  id: Math.random().toString(36),
  muxViewerId: null,
  watchTimeMs: 10_000,
  playingTimeMs: 9_000,
  startupTimeMs: 500,
  rebufferCount: 0,
  rebufferDurationMs: 0,
  rebufferPercentage: 0,
  seekLatencyMs: null,
  playbackFailure: false,
  videoStartupFailure: false,
  exitBeforeVideoStart: false,
  ...overrides,
});

const run = (metricId: string, views: MetricView[], measurement?: Parameters<typeof measurementFor>[1]) => {
  const definition = metricDefinition(metricId);
  return computeMetric(definition, measurementFor(definition, measurement), views);
};

describe('metrics', () => {
  const views = [
    view({ muxViewerId: 'a', startupTimeMs: 100, rebufferPercentage: 0.1, rebufferCount: 2, rebufferDurationMs: 1_000 }),
    view({ muxViewerId: 'a', startupTimeMs: 300 }),
    view({ muxViewerId: 'b', startupTimeMs: 900 }),
    view({ muxViewerId: null, startupTimeMs: null, watchTimeMs: 2_000, playingTimeMs: 0, exitBeforeVideoStart: true }),
  ];

  test('views, unique viewers, totals', () => {
    expect(run('views', views)).toEqual({ value: 4, views: 4, validViews: 4, totalWatchTime: 32_000, totalPlayingTime: 27_000 });
    expect(run('unique_viewers', views).value).toBe(3);
    expect(run('playing_time', views).value).toBe(27_000);
  });

  test('startup time: median by default, other measurements on request, views without a value left out', () => {
    expect(run('video_startup_time', views).value).toBe(300);
    expect(run('video_startup_time', views, 'avg').value).toBeCloseTo(433.33, 1);
    expect(run('video_startup_time', views, '95th').value).toBe(900);
    expect(run('video_startup_time', views).validViews).toBe(3);
  });

  test('rates as fractions over the views they concern', () => {
    expect(run('rebuffer_percentage', views).value).toBeCloseTo(0.1 / 3);
    expect(run('exits_before_video_start', views).value).toBe(0.25);
    expect(run('rebuffer_count', views).value).toBe(0);
    expect(run('rebuffer_frequency', views, 'sum').value).toBeCloseTo(2 / (10_000 / 60_000));
  });

  test('unknown metric and counts measured otherwise are refused', () => {
    expect(() => metricDefinition('viewer_happiness')).toThrow(ApiError);
    expect(() => metricDefinition('constructor')).toThrow(ApiError);
    expect(() => measurementFor(metricDefinition('views'), 'median')).toThrow(ApiError);
  });
});

test('negative impact ranks the group that pulls the metric the wrong way the most first', () => {
  const definition = metricDefinition('video_startup_time');
  const groups = [
    { value: 500, views: 10, validViews: 10, totalWatchTime: 0, totalPlayingTime: 0 },
    { value: 2_000, views: 2, validViews: 2, totalWatchTime: 0, totalPlayingTime: 0 },
    { value: 900, views: 20, validViews: 20, totalWatchTime: 0, totalPlayingTime: 0 },
  ];
  expect(negativeImpactRanks(definition, 700, groups)).toEqual([3, 2, 1]);
});

test('time buckets cover the timeframe, aligned to UTC', () => {
  expect(bucketStarts([3_590, 7_300], 'hour')).toEqual([0, 3_600, 7_200]);
  expect(defaultGranularity([0, 3_600])).toBe('minute');
  expect(defaultGranularity([0, 86_400])).toBe('ten_minutes');
  expect(defaultGranularity([0, 7 * 86_400])).toBe('hour');
  expect(defaultGranularity([0, 30 * 86_400])).toBe('day');
  expect(() => bucketStarts([0, 365 * 86_400], 'minute')).toThrow(ApiError);
});
