'use client';

import Link from 'next/link';
import { errorMessages } from '../hooks/api-fetch';
import type { LiveStreamJson } from '../hooks/dashboard-types';
import { useLiveStreamRecordings } from '../hooks/use-live-stream';
import { FOCUS_RING } from '../ui/button';
import { ErrorList } from '../ui/field';
import { formatDuration, formatUnixSeconds } from '../ui/format';
import { StatusBadge } from '../ui/status-badge';

// Each broadcast's asset (recent_asset_ids, newest first) with its status; a recording deleted
// since stays listed by id.
export function RecentRecordings({ stream }: { stream: LiveStreamJson }) {
  const recentAssetIds = stream.recent_asset_ids ?? [];
  const recordings = useLiveStreamRecordings(stream.id, recentAssetIds);

  return (
    <section aria-labelledby="recordings-heading" className="space-y-3">
      <h2 id="recordings-heading" className="text-lg font-semibold">
        Recent recordings
      </h2>
      {recentAssetIds.length === 0 && (
        <p className="text-sm text-zinc-600">
          {stream.new_asset_settings ? 'No recordings yet: each broadcast is recorded to a new asset.' : 'No recordings: recording is off for this stream.'}
        </p>
      )}
      {recordings.isError && <ErrorList messages={errorMessages(recordings.error)} />}
      {recordings.data && recordings.data.length > 0 && (
        <ul className="space-y-2" data-testid="recent-recordings">
          {recordings.data.map(({ id, asset }) => (
            <li key={id} data-asset-id={id} className="flex flex-wrap items-center gap-2 rounded-md border border-zinc-200 bg-white p-3 text-sm">
              {asset ? (
                <>
                  <Link href={`/assets/${id}`} className={`min-w-0 truncate font-mono text-indigo-700 hover:underline ${FOCUS_RING}`}>
                    {asset.meta?.title || id}
                  </Link>
                  <StatusBadge status={asset.status} />
                  {asset.is_live && <span className="text-xs font-medium text-emerald-700">recording now</span>}
                  <span className="ml-auto text-xs whitespace-nowrap text-zinc-600">
                    {formatDuration(asset.duration)} · {formatUnixSeconds(asset.created_at)}
                  </span>
                </>
              ) : (
                <>
                  <span className="min-w-0 truncate font-mono text-zinc-500">{id}</span>
                  <span className="text-xs text-zinc-500">deleted</span>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
