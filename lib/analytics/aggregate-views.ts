import { ApiError } from '../errors/api-error';
import { measure, type Measurement } from './measurements';
import { METRICS, type MetricDefinition, type MetricView } from './metric-definitions';

// A metric over a set of views (overall, per group, per time bucket), from the stored per-view
// values. Pure: the service loads the views, this computes.

export const metricDefinition = (metricId: string): MetricDefinition => {
  const definition = Object.hasOwn(METRICS, metricId) ? METRICS[metricId] : undefined;
  if (!definition) throw new ApiError('invalid_parameters', `"${metricId}" is not a supported metric (one of: ${Object.keys(METRICS).join(', ')})`);
  return definition;
};

export const measurementFor = (definition: MetricDefinition, requested: Measurement | undefined): Measurement => {
  if (definition.kind !== 'per_view') {
    if (requested !== undefined && requested !== 'count') throw new ApiError('invalid_parameters', `this metric is a count: measurement must be "count"`);
    return 'count';
  }
  return requested ?? definition.defaultMeasurement;
};

export type MetricResult = { value: number | null; views: number; validViews: number; totalWatchTime: number; totalPlayingTime: number };

export const computeMetric = (definition: MetricDefinition, measurement: Measurement, views: readonly MetricView[]): MetricResult => {
  let totalWatchTime = 0;
  let totalPlayingTime = 0;
  for (const view of views) {
    totalWatchTime += view.watchTimeMs;
    totalPlayingTime += view.playingTimeMs;
  }
  const base = { views: views.length, totalWatchTime, totalPlayingTime };
  if (definition.kind !== 'per_view') {
    // A view without a mux_viewer_id (cookies disabled) counts as a viewer of its own.
    const value = definition.kind === 'views' ? views.length : new Set(views.map((view) => view.muxViewerId ?? `view:${view.id}`)).size;
    return { ...base, value, validViews: views.length };
  }
  const values = views.map(definition.perView);
  return { ...base, value: measure(values, measurement), validViews: values.filter((value) => value !== null).length };
};

/**
 * Ranks groups by how much they pull the metric the wrong way (1 = the most): a group's distance
 * from the overall value, in the bad direction, weighted by its views. Counts and totals have no
 * bad direction of their own; there fewer is taken as worse.
 */
export const negativeImpactRanks = (definition: MetricDefinition, overall: number | null, groups: readonly MetricResult[]): number[] => {
  const direction = definition.higherIsWorse ? 1 : -1;
  const impacts = groups.map((group) => (group.value === null || overall === null ? -Infinity : (group.value - overall) * direction * group.views));
  const order = impacts.map((impact, index) => ({ impact, index })).sort((a, b) => b.impact - a.impact || a.index - b.index);
  const ranks = new Array<number>(groups.length);
  order.forEach(({ index }, rank) => {
    ranks[index] = rank + 1;
  });
  return ranks;
};

export const GRANULARITY_SECONDS = { minute: 60, ten_minutes: 600, hour: 3_600, day: 86_400 } as const;
export type Granularity = keyof typeof GRANULARITY_SECONDS;
const MAX_BUCKETS = 10_000;

/** The granularity Mux would pick for a timeframe when none is asked for. */
export const defaultGranularity = ([start, end]: readonly [number, number]): Granularity => {
  const span = end - start;
  if (span <= 3 * 3_600) return 'minute';
  if (span <= 24 * 3_600) return 'ten_minutes';
  if (span <= 14 * 86_400) return 'hour';
  return 'day';
};

/** Bucket starts (epoch seconds, aligned to UTC) covering the timeframe. */
export const bucketStarts = ([start, end]: readonly [number, number], granularity: Granularity): number[] => {
  const size = GRANULARITY_SECONDS[granularity];
  const first = Math.floor(start / size) * size;
  const count = Math.floor((end - first) / size) + 1;
  if (count > MAX_BUCKETS) throw new ApiError('invalid_parameters', `the timeframe holds more than ${MAX_BUCKETS} ${granularity} intervals; choose a coarser group_by`);
  return Array.from({ length: count }, (_, index) => first + index * size);
};
