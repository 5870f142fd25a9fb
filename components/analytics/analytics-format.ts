import type { AnalyticsSeriesJson, AnalyticsTimeframe } from '@/lib/schemas/dashboard-analytics';

// Display helpers for the analytics numbers: the Data API gives times in milliseconds and
// rebuffering as a fraction of watch time.

export const TIMEFRAME_LABELS: Record<AnalyticsTimeframe, string> = {
  '1:hours': 'Last hour',
  '24:hours': 'Last 24 hours',
  '7:days': 'Last 7 days',
  '30:days': 'Last 30 days',
};

export const formatCount = (value: number): string => value.toLocaleString('en-US');

/** A short duration such as a startup time: "850 ms", "1.4 s". */
export const formatLatency = (ms: number | null): string => {
  if (ms === null) return '—';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
};

/** A total such as playing time: "42 s", "12 min", "3 h 5 min". */
export const formatWatchTime = (ms: number): string => {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return `${formatCount(hours)} h ${minutes % 60} min`;
};

export const formatPercentage = (fraction: number | null): string =>
  fraction === null ? '—' : `${(fraction * 100).toFixed(fraction !== 0 && fraction < 0.001 ? 2 : 1)} %`;

/** An interval's start on a chart axis: the time of day, or the date for daily intervals. */
export const formatInterval = (iso: string, granularity: AnalyticsSeriesJson['granularity']): string => {
  const at = new Date(iso);
  if (granularity === 'day') return at.toLocaleDateString('en-US', { month: 'short', day: 'numeric' });
  return at.toLocaleTimeString('en-US', { hour: '2-digit', minute: '2-digit', hour12: false });
};

export const formatIntervalFull = (iso: string): string =>
  new Date(iso).toLocaleString('en-US', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hour12: false });
