'use client';

import { useState, type ComponentProps } from 'react';
import { BREAKDOWN_DIMENSIONS, type AnalyticsSummaryJson, type AnalyticsTimeframe } from '@/lib/schemas/dashboard-analytics';
import { errorMessages } from '../hooks/api-fetch';
import { useAnalyticsSeries, useAnalyticsSummary } from '../hooks/use-analytics';
import { ErrorList } from '../ui/field';
import { AnalyticsEmptyState } from './analytics-empty-state';
import { formatCount, formatLatency, formatPercentage, formatWatchTime } from './analytics-format';
import { BreakdownTable } from './breakdown-table';
import { ErrorsTable } from './errors-table';
import { MetricChart } from './metric-chart';
import { SummaryFigures } from './summary-figures';
import { TimeframePicker } from './timeframe-picker';
import { ViewersNow } from './viewers-now';

type ChartSpec = Pick<ComponentProps<typeof MetricChart>, 'title' | 'metric' | 'format' | 'kind' | 'yMinimumTop'> & {
  headline: (summary: AnalyticsSummaryJson) => string;
};

const CHARTS: ChartSpec[] = [
  { title: 'Views', metric: 'views', format: formatCount, kind: 'total', headline: (s) => formatCount(s.views) },
  { title: 'Playing time', metric: 'playing_time_ms', format: formatWatchTime, kind: 'total', headline: (s) => formatWatchTime(s.playing_time_ms) },
  {
    title: 'Startup time (median)',
    metric: 'video_startup_time_ms',
    format: formatLatency,
    kind: 'typical',
    headline: (s) => formatLatency(s.video_startup_time_ms),
  },
  {
    title: 'Rebuffering',
    metric: 'rebuffer_percentage',
    format: formatPercentage,
    kind: 'typical',
    // A smooth day is all zeros: show it against 5 %, not an axis stretched around nothing.
    yMinimumTop: 0.05,
    headline: (s) => formatPercentage(s.rebuffer_percentage),
  },
];

function Charts({ timeframe, summary }: { timeframe: AnalyticsTimeframe; summary: AnalyticsSummaryJson }) {
  const series = useAnalyticsSeries(timeframe);
  if (series.isError) return <ErrorList messages={errorMessages(series.error)} />;
  if (!series.data) return <div className="h-56 animate-pulse rounded-lg bg-zinc-100" />;
  return (
    <div className="grid grid-cols-1 gap-3 lg:grid-cols-2">
      {CHARTS.map(({ headline, ...chart }) => (
        <MetricChart key={chart.metric} {...chart} headline={headline(summary)} series={series.data} />
      ))}
    </div>
  );
}

export function AnalyticsPage() {
  const [timeframe, setTimeframe] = useState<AnalyticsTimeframe>('24:hours');
  const summary = useAnalyticsSummary(timeframe);
  return (
    <div className="space-y-6">
      <div className="space-y-1">
        <h1 className="text-2xl font-semibold">Analytics</h1>
        <p className="text-sm text-zinc-600">
          What viewers saw, as reported by the players (mux-embed beacons). Scripts can read the same numbers from the Data API,{' '}
          <code className="font-mono text-xs">/data/v1/metrics/…</code>, with an access token.
        </p>
      </div>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <TimeframePicker value={timeframe} onChange={setTimeframe} />
        <ViewersNow />
      </div>
      {summary.isError && <ErrorList messages={errorMessages(summary.error)} />}
      {summary.isPending && <p className="text-sm text-zinc-600">Loading…</p>}
      {summary.data && summary.data.views === 0 && <AnalyticsEmptyState />}
      {summary.data && summary.data.views > 0 && (
        <>
          <SummaryFigures summary={summary.data} />
          <Charts timeframe={timeframe} summary={summary.data} />
          {/* Asset titles get the full width; browsers and systems are short and sit side by side. */}
          <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
            {BREAKDOWN_DIMENSIONS.map((dimension) => (
              <div key={dimension} className={dimension === 'asset_id' ? 'min-w-0 lg:col-span-2' : 'min-w-0'}>
                <BreakdownTable timeframe={timeframe} dimension={dimension} />
              </div>
            ))}
          </div>
          <ErrorsTable timeframe={timeframe} />
        </>
      )}
    </div>
  );
}
