import {
  bucketStarts,
  computeMetric,
  defaultGranularity,
  GRANULARITY_SECONDS,
  measurementFor,
  metricDefinition,
  negativeImpactRanks,
  type Granularity,
  type MetricResult,
} from '../../analytics/aggregate-views';
import { DIMENSIONS, isDimension, parseFilters, unknownDimension } from '../../analytics/data-query';
import type { Measurement } from '../../analytics/measurements';
import type { MetricView } from '../../analytics/metric-definitions';
import type { ViewState } from '../../analytics/view-state';
import { getDb } from '../../db/client';
import { ApiError, notFound } from '../../errors/api-error';
import {
  isoSeconds,
  serializeVideoViewDetail,
  serializeVideoViewSummary,
  type VideoViewDetail,
  type VideoViewSummary,
} from '../../schemas/data-api';
import { filterWhere, resolveViewQuery } from './view-where';

// Mux's Data API (§7.5) over the stored views: each function returns the JSON body Mux answers
// with, for the routes under app/data/v1 and the dashboard.

export type { VideoViewDetail, VideoViewSummary };
export type DataQueryInput = { timeframe?: string[]; filters?: string[]; measurement?: string };

const VIEWERS_NOW_WINDOW_MS = 60_000;
const DEFAULT_PAGE_LIMIT = 25;

const METRIC_COLUMNS = {
  id: true,
  muxViewerId: true,
  watchTimeMs: true,
  playingTimeMs: true,
  startupTimeMs: true,
  rebufferCount: true,
  rebufferDurationMs: true,
  rebufferPercentage: true,
  seekLatencyMs: true,
  playbackFailure: true,
  videoStartupFailure: true,
  exitBeforeVideoStart: true,
} as const;

const measurementOf = (measurement: string | undefined): Measurement | undefined => {
  if (measurement === undefined || measurement === '') return undefined;
  if (!['95th', 'median', 'avg', 'count', 'sum'].includes(measurement)) {
    throw new ApiError('invalid_parameters', `measurement "${measurement}" must be one of 95th, median, avg, count, sum`);
  }
  return measurement as Measurement;
};

const metricSetup = (metricId: string, query: DataQueryInput) => {
  const definition = metricDefinition(metricId);
  return { definition, measurement: measurementFor(definition, measurementOf(query.measurement)) };
};

const loadMetricViews = (where: ReturnType<typeof resolveViewQuery>['where']): Promise<MetricView[]> =>
  getDb().playbackView.findMany({ where, select: METRIC_COLUMNS });

export async function metricOverall(
  metricId: string,
  query: DataQueryInput,
): Promise<{
  total_row_count: number;
  timeframe: [number, number];
  meta: { aggregation: string };
  data: { value: number | null; total_watch_time: number; total_playing_time: number; total_views: number; global_value: number | null };
}> {
  const { definition, measurement } = metricSetup(metricId, query);
  const { timeframe, where } = resolveViewQuery(query);
  const result = computeMetric(definition, measurement, await loadMetricViews(where));
  const unfiltered = (query.filters ?? []).length === 0 ? result : computeMetric(definition, measurement, await loadMetricViews(resolveViewQuery(query, { withFilters: false }).where));
  return {
    total_row_count: 1,
    timeframe,
    meta: { aggregation: 'view_end' },
    data: {
      value: result.value,
      total_watch_time: result.totalWatchTime,
      total_playing_time: result.totalPlayingTime,
      total_views: result.views,
      global_value: unfiltered.value,
    },
  };
}

type BreakdownRow = { field: string | null; value: number | null; views: number; total_watch_time: number; total_playing_time: number; negative_impact: number };

const compareRows = (orderBy: 'negative_impact' | 'value' | 'views' | 'field') => (a: BreakdownRow, b: BreakdownRow) => {
  const left = a[orderBy];
  const right = b[orderBy];
  if (left === right) return 0;
  if (left === null) return -1;
  if (right === null) return 1;
  return left < right ? -1 : 1;
};

export async function metricBreakdown(
  metricId: string,
  query: DataQueryInput & {
    group_by: string;
    order_by?: 'negative_impact' | 'value' | 'views' | 'field';
    order_direction?: 'asc' | 'desc';
    limit?: number;
    page?: number;
  },
): Promise<{ total_row_count: number; timeframe: [number, number]; meta: { aggregation: string }; data: BreakdownRow[] }> {
  const { definition, measurement } = metricSetup(metricId, query);
  if (!isDimension(query.group_by)) throw unknownDimension(query.group_by);
  const column = DIMENSIONS[query.group_by];
  const { timeframe, where } = resolveViewQuery(query);
  const views = await getDb().playbackView.findMany({ where, select: { ...METRIC_COLUMNS, [column]: true } });
  const groups = new Map<string | null, MetricView[]>();
  for (const view of views) {
    const raw = (view as Record<string, unknown>)[column];
    const field = raw === null || raw === undefined ? null : String(raw);
    const group = groups.get(field);
    if (group) group.push(view);
    else groups.set(field, [view]);
  }
  const fields = [...groups.keys()];
  const results: MetricResult[] = fields.map((field) => computeMetric(definition, measurement, groups.get(field) ?? []));
  const overall = computeMetric(definition, measurement, views).value;
  const ranks = negativeImpactRanks(definition, overall, results);
  const rows: BreakdownRow[] = fields.map((field, index) => {
    const result = results[index] as MetricResult;
    return {
      field,
      value: result.value,
      views: result.views,
      total_watch_time: result.totalWatchTime,
      total_playing_time: result.totalPlayingTime,
      negative_impact: ranks[index] as number,
    };
  });
  const orderBy = query.order_by ?? 'views';
  const direction = query.order_direction ?? (orderBy === 'negative_impact' || orderBy === 'field' ? 'asc' : 'desc');
  rows.sort(compareRows(orderBy));
  if (direction === 'desc') rows.reverse();
  const limit = query.limit ?? DEFAULT_PAGE_LIMIT;
  const page = query.page ?? 1;
  return { total_row_count: rows.length, timeframe, meta: { aggregation: 'view_end' }, data: rows.slice((page - 1) * limit, page * limit) };
}

export async function metricTimeseries(
  metricId: string,
  query: DataQueryInput & { group_by?: 'minute' | 'ten_minutes' | 'hour' | 'day' },
): Promise<{ total_row_count: number; timeframe: [number, number]; meta: { aggregation: string; granularity: string }; data: Array<[string, number | null, number]> }> {
  const { definition, measurement } = metricSetup(metricId, query);
  const { timeframe, where } = resolveViewQuery(query);
  const granularity: Granularity = query.group_by ?? defaultGranularity(timeframe);
  const starts = bucketStarts(timeframe, granularity);
  const size = GRANULARITY_SECONDS[granularity];
  const views = await getDb().playbackView.findMany({ where, select: { ...METRIC_COLUMNS, viewEnd: true } });
  const buckets = starts.map(() => [] as MetricView[]);
  const first = starts[0] as number;
  for (const view of views) {
    const index = Math.floor((Math.floor(view.viewEnd.getTime() / 1000) - first) / size);
    buckets[Math.min(Math.max(index, 0), buckets.length - 1)]?.push(view);
  }
  const data = starts.map((start, index): [string, number | null, number] => {
    const result = computeMetric(definition, measurement, buckets[index] ?? []);
    return [isoSeconds(new Date(start * 1000)), result.value, result.validViews];
  });
  return { total_row_count: data.length, timeframe, meta: { aggregation: 'view_end', granularity }, data };
}

const errorIdWhere = (errorId: string | undefined) => {
  if (errorId === undefined || errorId === '') return {};
  if (errorId === 'any') return { errorTypeId: { not: null } };
  if (!/^\d{1,10}$/.test(errorId)) throw new ApiError('invalid_parameters', 'error_id must be an error type id or "any"');
  return { errorTypeId: Number(errorId) };
};

const parseState = (stateJson: string): ViewState => JSON.parse(stateJson) as ViewState;

export async function listVideoViews(
  query: DataQueryInput & { limit?: number; page?: number; viewer_id?: string; error_id?: string; order_direction?: 'asc' | 'desc' },
): Promise<{ total_row_count: number; timeframe: [number, number]; data: VideoViewSummary[] }> {
  const resolved = resolveViewQuery(query);
  const where = {
    ...resolved.where,
    ...(query.viewer_id ? { muxViewerId: query.viewer_id } : {}),
    ...errorIdWhere(query.error_id),
  };
  const limit = query.limit ?? DEFAULT_PAGE_LIMIT;
  const page = query.page ?? 1;
  const direction = query.order_direction ?? 'desc';
  const db = getDb();
  const [total, rows] = await Promise.all([
    db.playbackView.count({ where }),
    db.playbackView.findMany({ where, orderBy: [{ viewEnd: direction }, { id: direction }], skip: (page - 1) * limit, take: limit }),
  ]);
  return { total_row_count: total, timeframe: resolved.timeframe, data: rows.map((row) => serializeVideoViewSummary(row, parseState(row.stateJson), total)) };
}

export async function getVideoView(id: string): Promise<{ data: VideoViewDetail }> {
  const row = await getDb().playbackView.findUnique({ where: { id } });
  if (!row) throw notFound('Video view');
  return { data: serializeVideoViewDetail(row, parseState(row.stateJson)) };
}

export async function viewersNow(filters?: string[]): Promise<{ viewers: number }> {
  const since = new Date(Date.now() - VIEWERS_NOW_WINDOW_MS);
  const viewers = await getDb().playbackView.count({
    where: {
      closed: false,
      lastBeaconAt: { gte: since },
      AND: parseFilters(filters).map(filterWhere),
    },
  });
  return { viewers };
}
