'use client';

import Link from 'next/link';
import type { AssetJson } from '../hooks/dashboard-types';
import { FOCUS_RING } from '../ui/button';
import { formatDuration, formatUnixSeconds } from '../ui/format';
import { StatusBadge } from '../ui/status-badge';
import { AssetThumbnail } from './asset-thumbnail';
import { assetTitle } from './asset-title';

export function AssetsTable({ assets }: { assets: AssetJson[] }) {
  return (
    <div className="relative overflow-x-auto rounded-lg border border-zinc-200 bg-white">
      <table className="w-full min-w-[44rem] text-left text-sm">
        <thead className="border-b border-zinc-200 bg-zinc-50 text-xs text-zinc-600 uppercase">
          <tr>
            <th scope="col" className="px-3 py-2">Asset</th>
            <th scope="col" className="px-3 py-2">Duration</th>
            <th scope="col" className="px-3 py-2">Resolution</th>
            <th scope="col" className="px-3 py-2">Quality</th>
            <th scope="col" className="px-3 py-2">Status</th>
            <th scope="col" className="px-3 py-2">Created</th>
          </tr>
        </thead>
        <tbody>
          {assets.map((asset) => (
            <tr key={asset.id} data-asset-id={asset.id} className="border-b border-zinc-100 last:border-0 hover:bg-zinc-50">
              <td className="px-3 py-2">
                <div className="flex items-center gap-3">
                  <AssetThumbnail asset={asset} />
                  <div className="min-w-0">
                    <Link href={`/assets/${asset.id}`} className={`block truncate font-medium text-indigo-700 hover:underline ${FOCUS_RING}`}>
                      {assetTitle(asset)}
                    </Link>
                    <span className="block truncate font-mono text-xs text-zinc-500">{asset.id}</span>
                  </div>
                </div>
              </td>
              <td className="px-3 py-2 tabular-nums">{formatDuration(asset.duration)}</td>
              <td className="px-3 py-2">{asset.resolution_tier ?? '—'}</td>
              <td className="px-3 py-2">{asset.video_quality}</td>
              <td className="px-3 py-2">
                <StatusBadge status={asset.status} />
              </td>
              <td className="px-3 py-2 whitespace-nowrap text-zinc-600">{formatUnixSeconds(asset.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
