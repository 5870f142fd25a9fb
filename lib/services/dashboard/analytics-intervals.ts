import type { AnalyticsSeriesJson } from '../../schemas/dashboard-analytics';

export type Granularity = AnalyticsSeriesJson['granularity'];

const STEP_MS: Record<Granularity, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/** Timeseries rows as the Data API gives them: [interval start (ISO), value, views with a value]. */
export type TimeseriesRow = [string, number | null, number];

// Every interval of the timeframe (epoch seconds), UTC-aligned as the Data API buckets them, so the
// charts show quiet periods as zero instead of joining the busy ones with a straight line.
export const intervalsOf = ([start, end]: [number, number], granularity: Granularity): number[] => {
  const step = STEP_MS[granularity];
  const intervals: number[] = [];
  for (let at = Math.floor((start * 1000) / step) * step; at <= end * 1000; at += step) intervals.push(at);
  return intervals;
};

/** A metric's value per interval start (epoch ms), whatever ISO spelling the rows use. */
export const valuesByInterval = (rows: TimeseriesRow[]): Map<number, number | null> =>
  new Map(rows.map(([at, value]) => [Date.parse(at), value]));
