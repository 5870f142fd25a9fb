'use client';

import Link from 'next/link';
import type { AnalyticsTimeframe, BreakdownDimension } from '@/lib/schemas/dashboard-analytics';
import { errorMessages } from '../hooks/api-fetch';
import { useAnalyticsBreakdown } from '../hooks/use-analytics';
import { FOCUS_RING } from '../ui/button';
import { ErrorList } from '../ui/field';
import { formatCount, formatLatency, formatWatchTime } from './analytics-format';

const TITLES: Record<BreakdownDimension, { title: string; column: string }> = {
  asset_id: { title: 'By asset', column: 'Asset' },
  browser: { title: 'By browser', column: 'Browser' },
  operating_system: { title: 'By operating system', column: 'Operating system' },
};

// The ten most watched values of one dimension in the timeframe.
export function BreakdownTable({ timeframe, dimension }: { timeframe: AnalyticsTimeframe; dimension: BreakdownDimension }) {
  const rows = useAnalyticsBreakdown(timeframe, dimension);
  const { title, column } = TITLES[dimension];
  const headingId = `breakdown-${dimension}`;
  return (
    <section aria-labelledby={headingId} className="min-w-0 space-y-2" data-testid={`breakdown-${dimension}`}>
      <h2 id={headingId} className="text-lg font-semibold">
        {title}
      </h2>
      {rows.isError && <ErrorList messages={errorMessages(rows.error)} />}
      {rows.isPending && <p className="text-sm text-zinc-600">Loading…</p>}
      {rows.data?.length === 0 && <p className="text-sm text-zinc-600">No views in this timeframe.</p>}
      {rows.data && rows.data.length > 0 && (
        <div className="relative overflow-x-auto rounded-lg border border-zinc-200 bg-white">
          <table className="w-full text-left text-sm">
            <thead className="border-b border-zinc-200 bg-zinc-50 text-xs text-zinc-600 uppercase">
              <tr>
                <th scope="col" className="px-3 py-2">{column}</th>
                <th scope="col" className="px-3 py-2 text-right">Views</th>
                <th scope="col" className="px-3 py-2 text-right">Playing time</th>
                <th scope="col" className="px-3 py-2 text-right">Median startup</th>
              </tr>
            </thead>
            <tbody>
              {rows.data.map((row) => (
                <tr key={row.field ?? ''} data-field={row.field ?? ''} className="border-b border-zinc-100 last:border-0">
                  <th scope="row" className="max-w-[14rem] truncate px-3 py-2 font-medium" title={row.label}>
                    {dimension === 'asset_id' && row.field ? (
                      <Link href={`/assets/${row.field}`} className={`text-indigo-700 hover:underline ${FOCUS_RING}`}>
                        {row.label}
                      </Link>
                    ) : (
                      row.label
                    )}
                  </th>
                  <td className="px-3 py-2 text-right tabular-nums" data-testid="breakdown-views">{formatCount(row.views)}</td>
                  <td className="px-3 py-2 text-right tabular-nums">{formatWatchTime(row.playing_time_ms)}</td>
                  <td className="px-3 py-2 text-right tabular-nums">{formatLatency(row.video_startup_time_ms)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
