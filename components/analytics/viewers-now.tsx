'use client';

import { useViewersNow } from '../hooks/use-analytics';
import { VIEWERS_NOW_POLL_MS } from '../hooks/query-keys';
import { formatCount } from './analytics-format';

// A live count of players that beaconed in the last minute, announced politely as it changes.
export function ViewersNow() {
  const viewers = useViewersNow();
  return (
    <p className="flex items-center gap-2 text-sm" title={`Players that reported in the last minute, updated every ${VIEWERS_NOW_POLL_MS / 1000} s`}>
      <span className={`inline-block size-2 rounded-full ${viewers.data?.viewers ? 'bg-green-500' : 'bg-zinc-300'}`} aria-hidden="true" />
      <span aria-live="polite">
        <span className="font-semibold tabular-nums" data-testid="viewers-now">
          {viewers.isError ? '—' : viewers.data ? formatCount(viewers.data.viewers) : '…'}
        </span>{' '}
        watching now
      </span>
    </p>
  );
}
