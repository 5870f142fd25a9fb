'use client';

import Link from 'next/link';
import { TIMEFRAME_LABELS } from '../analytics/analytics-format';
import { SummaryFigures } from '../analytics/summary-figures';
import { errorMessages } from '../hooks/api-fetch';
import { useAssetAnalytics } from '../hooks/use-analytics';
import { FOCUS_RING } from '../ui/button';
import { ErrorList } from '../ui/field';

const TIMEFRAME = '30:days';

// The asset's own numbers from the players' beacons (its previews here included).
export function AssetAnalytics({ assetId }: { assetId: string }) {
  const summary = useAssetAnalytics(assetId, TIMEFRAME);
  return (
    <section aria-labelledby="asset-analytics-heading" className="space-y-3" data-testid="asset-analytics">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 id="asset-analytics-heading" className="text-lg font-semibold">
          Views <span className="text-sm font-normal text-zinc-500">· {TIMEFRAME_LABELS[TIMEFRAME].toLowerCase()}</span>
        </h2>
        <Link href="/analytics" className={`text-sm text-indigo-700 hover:underline ${FOCUS_RING}`}>
          All analytics
        </Link>
      </div>
      {summary.isError && <ErrorList messages={errorMessages(summary.error)} />}
      {summary.isPending && <p className="text-sm text-zinc-500">Loading…</p>}
      {summary.data && (
        <SummaryFigures
          summary={summary.data}
          only={['views', 'playing_time_ms', 'video_startup_time_ms', 'rebuffer_percentage']}
          columns="grid-cols-2"
        />
      )}
    </section>
  );
}
