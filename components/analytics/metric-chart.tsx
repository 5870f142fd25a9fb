'use client';

import { useId } from 'react';
import { Area, AreaChart, CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { AnalyticsPointJson, AnalyticsSeriesJson } from '@/lib/schemas/dashboard-analytics';
import { formatInterval, formatIntervalFull } from './analytics-format';

type NumericKey = 'views' | 'playing_time_ms' | 'video_startup_time_ms' | 'rebuffer_percentage';

const COLOR = '#4f46e5';

// One metric over time: totals (views, playing time) as filled areas, typical values (startup,
// rebuffering) as a line with gaps where no view reported one. The figure's caption carries the
// headline number, so the chart itself is a picture of the trend.
export function MetricChart({
  title,
  headline,
  series,
  metric,
  format,
  kind,
  yMinimumTop = 0,
}: {
  title: string;
  headline: string;
  series: AnalyticsSeriesJson;
  metric: NumericKey;
  format: (value: number) => string;
  kind: 'total' | 'typical';
  /** The y axis reaches at least this far, so near-zero values do not fill the chart. */
  yMinimumTop?: number;
}) {
  const titleId = useId();
  const axis = {
    x: <XAxis dataKey="at" tickFormatter={(iso: string) => formatInterval(iso, series.granularity)} minTickGap={24} tick={{ fontSize: 11 }} />,
    y: (
      <YAxis
        domain={[0, (dataMax: number) => Math.max(dataMax, yMinimumTop)]}
        tickFormatter={(value: number) => format(value)}
        width={64}
        tick={{ fontSize: 11 }}
        allowDecimals={metric !== 'views'}
      />
    ),
    tooltip: (
      <Tooltip
        labelFormatter={(iso) => formatIntervalFull(String(iso))}
        formatter={(value) => [typeof value === 'number' ? format(value) : '—', title]}
      />
    ),
  };
  return (
    <figure aria-labelledby={titleId} className="rounded-lg border border-zinc-200 bg-white p-3" data-testid={`chart-${metric}`}>
      <figcaption id={titleId} className="flex items-baseline justify-between gap-2">
        <span className="text-sm font-medium text-zinc-700">{title}</span>
        <span className="text-lg font-semibold tabular-nums">{headline}</span>
      </figcaption>
      <div className="mt-2 h-44">
        <ResponsiveContainer width="100%" height="100%">
          {kind === 'total' ? (
            <AreaChart data={series.points as AnalyticsPointJson[]} margin={{ top: 4, right: 8, bottom: 0, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              {axis.x}
              {axis.y}
              {axis.tooltip}
              <Area type="monotone" dataKey={metric} stroke={COLOR} fill={COLOR} fillOpacity={0.15} isAnimationActive={false} />
            </AreaChart>
          ) : (
            <LineChart data={series.points as AnalyticsPointJson[]} margin={{ top: 4, right: 8, bottom: 0, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              {axis.x}
              {axis.y}
              {axis.tooltip}
              <Line type="monotone" dataKey={metric} stroke={COLOR} dot={{ r: 2 }} connectNulls={false} isAnimationActive={false} />
            </LineChart>
          )}
        </ResponsiveContainer>
      </div>
    </figure>
  );
}
