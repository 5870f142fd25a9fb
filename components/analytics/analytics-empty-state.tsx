'use client';

import Link from 'next/link';
import { useAnalyticsMonitoring } from '../hooks/use-analytics-player';
import { FOCUS_RING } from '../ui/button';

// Shown while no view was reported in the timeframe: where views come from.
export function AnalyticsEmptyState() {
  const monitoring = useAnalyticsMonitoring();
  const domain = monitoring.data?.beacon_collection_domain ?? '…';
  return (
    <div className="space-y-2 rounded-lg border border-dashed border-zinc-300 bg-white p-4 text-sm text-zinc-700" data-testid="analytics-empty">
      <p className="font-medium text-zinc-900">No views in this timeframe.</p>
      <p>
        Views are reported by the players themselves. Embed the player page (an{' '}
        <Link href="/assets" className={`text-indigo-700 underline ${FOCUS_RING}`}>
          asset&apos;s
        </Link>{' '}
        page has its embed code), play an asset&apos;s preview here, or point mux-embed or Mux Player at this server:
      </p>
      <pre className="overflow-x-auto rounded bg-zinc-50 p-2 text-xs">
        <code>{`mux.monitor(video, { beaconCollectionDomain: '${domain}', data: { env_key: 'keyframe' } })\n<mux-player beacon-collection-domain="${domain}" env-key="keyframe" …>`}</code>
      </pre>
    </div>
  );
}
