import { z } from 'zod';

// Query parameters and wire shapes of the dashboard's analytics routes (app/api/dashboard/analytics/**).
// Times are milliseconds and rebuffering a fraction (0.02 = 2 %), as the Data API answers them.

export const ANALYTICS_TIMEFRAMES = ['1:hours', '24:hours', '7:days', '30:days'] as const;
export type AnalyticsTimeframe = (typeof ANALYTICS_TIMEFRAMES)[number];

export const BREAKDOWN_DIMENSIONS = ['asset_id', 'browser', 'operating_system'] as const;
export type BreakdownDimension = (typeof BREAKDOWN_DIMENSIONS)[number];

export const analyticsQuery = z.object({ timeframe: z.enum(ANALYTICS_TIMEFRAMES).default('24:hours') });
export const breakdownQuery = analyticsQuery.extend({ group_by: z.enum(BREAKDOWN_DIMENSIONS) });

export type AnalyticsSummaryJson = {
  views: number;
  unique_viewers: number;
  playing_time_ms: number;
  watch_time_ms: number;
  /** Median time to first frame; null without a started view. */
  video_startup_time_ms: number | null;
  rebuffer_percentage: number | null;
  exits_before_video_start: number;
};

export type AnalyticsPointJson = {
  /** Start of the interval, ISO 8601. */
  at: string;
  views: number;
  playing_time_ms: number;
  video_startup_time_ms: number | null;
  rebuffer_percentage: number | null;
};

/** One row of the analytics page's playback errors table (the Data API's /errors, for the dashboard). */
export type PlaybackErrorJson = {
  id: number;
  /** The player's error code as it reported it. */
  code: string | null;
  message: string | null;
  views: number;
  /** Share of the timeframe's views that had it (0.02 = 2 %). */
  percentage: number;
  last_seen: string;
};

export type AnalyticsSeriesJson = { granularity: 'minute' | 'hour' | 'day'; timeframe: [number, number]; points: AnalyticsPointJson[] };

export type BreakdownRowJson = {
  /** The dimension's value; null when players did not report it. */
  field: string | null;
  /** What to show for the value: an asset's title, else the value itself. */
  label: string;
  views: number;
  playing_time_ms: number;
  video_startup_time_ms: number | null;
};

export type MonitoringConfigJson = { beacon_collection_domain: string; env_key: string };

export type EmbedCodeJson = { url: string; html: string };
