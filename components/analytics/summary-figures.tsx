import type { AnalyticsSummaryJson } from '@/lib/schemas/dashboard-analytics';
import { formatCount, formatLatency, formatPercentage, formatWatchTime } from './analytics-format';

type Figure = { key: keyof AnalyticsSummaryJson; label: string; value: (summary: AnalyticsSummaryJson) => string; note: string };

const FIGURES: Figure[] = [
  { key: 'views', label: 'Views', value: (s) => formatCount(s.views), note: 'views that ended in the timeframe, or are still open' },
  { key: 'unique_viewers', label: 'Unique viewers', value: (s) => formatCount(s.unique_viewers), note: "by the player's viewer cookie" },
  { key: 'playing_time_ms', label: 'Playing time', value: (s) => formatWatchTime(s.playing_time_ms), note: 'time the video was playing' },
  { key: 'video_startup_time_ms', label: 'Startup time', value: (s) => formatLatency(s.video_startup_time_ms), note: 'median time to first frame' },
  { key: 'rebuffer_percentage', label: 'Rebuffering', value: (s) => formatPercentage(s.rebuffer_percentage), note: 'of watch time spent stalled (average)' },
  { key: 'exits_before_video_start', label: 'Exits before start', value: (s) => formatCount(s.exits_before_video_start), note: 'views left before the first frame' },
];

// The headline numbers, on the analytics page and (fewer of them) on an asset's page.
export function SummaryFigures({
  summary,
  only,
  columns = 'grid-cols-2 sm:grid-cols-3 xl:grid-cols-6',
}: {
  summary: AnalyticsSummaryJson;
  only?: Array<keyof AnalyticsSummaryJson>;
  /** Grid columns for where the figures sit. */
  columns?: string;
}) {
  const figures = only ? FIGURES.filter((figure) => only.includes(figure.key)) : FIGURES;
  return (
    <dl className={`grid gap-3 ${columns}`}>
      {figures.map((figure) => (
        <div key={figure.key} className="rounded-lg border border-zinc-200 bg-white px-3 py-2">
          <dt className="text-xs font-medium text-zinc-600 uppercase">{figure.label}</dt>
          <dd className="mt-1 text-xl font-semibold tabular-nums" data-testid={`figure-${figure.key}`}>
            {figure.value(summary)}
          </dd>
          <dd className="text-xs text-zinc-500">{figure.note}</dd>
        </div>
      ))}
    </dl>
  );
}
