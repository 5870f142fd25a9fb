'use client';

import type { AnalyticsTimeframe } from '@/lib/schemas/dashboard-analytics';
import { errorMessages } from '../hooks/api-fetch';
import { useAnalyticsErrors } from '../hooks/use-analytics';
import { ErrorList } from '../ui/field';
import { formatCount, formatPercentage } from './analytics-format';

// The fatal errors players reported in the timeframe, most frequent first.
export function ErrorsTable({ timeframe }: { timeframe: AnalyticsTimeframe }) {
  const rows = useAnalyticsErrors(timeframe);
  return (
    <section aria-labelledby="playback-errors" className="min-w-0 space-y-2" data-testid="playback-errors">
      <h2 id="playback-errors" className="text-lg font-semibold">
        Playback errors
      </h2>
      {rows.isError && <ErrorList messages={errorMessages(rows.error)} />}
      {rows.isPending && <p className="text-sm text-zinc-600">Loading…</p>}
      {rows.data?.length === 0 && <p className="text-sm text-zinc-600">No view ended in an error in this timeframe.</p>}
      {rows.data && rows.data.length > 0 && (
        <div className="relative overflow-x-auto rounded-lg border border-zinc-200 bg-white">
          <table className="w-full text-left text-sm">
            <thead className="border-b border-zinc-200 bg-zinc-50 text-xs text-zinc-600 uppercase">
              <tr>
                <th scope="col" className="px-3 py-2">Code</th>
                <th scope="col" className="px-3 py-2">Message</th>
                <th scope="col" className="px-3 py-2 text-right">Views</th>
                <th scope="col" className="px-3 py-2 text-right">Of all views</th>
                <th scope="col" className="px-3 py-2 text-right">Last seen</th>
              </tr>
            </thead>
            <tbody>
              {rows.data.map((row) => (
                <tr key={row.id} data-error-id={row.id} className="border-b border-zinc-100 last:border-0">
                  <th scope="row" className="px-3 py-2 font-mono text-xs font-medium">{row.code ?? '—'}</th>
                  <td className="max-w-[24rem] truncate px-3 py-2" title={row.message ?? undefined}>
                    {row.message ?? 'No message reported'}
                  </td>
                  <td className="px-3 py-2 text-right tabular-nums" data-testid="error-views">{formatCount(row.views)}</td>
                  <td className="px-3 py-2 text-right tabular-nums" data-testid="error-percentage">{formatPercentage(row.percentage)}</td>
                  <td className="px-3 py-2 text-right whitespace-nowrap tabular-nums">
                    <time dateTime={row.last_seen}>{new Date(row.last_seen).toLocaleString()}</time>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
