'use client';

import Link from 'next/link';
import { useAsset } from '../hooks/use-asset';
import { remainingSeconds, type UploadItem } from '../hooks/use-upload-queue';
import { Button, FOCUS_RING } from '../ui/button';
import { formatBytes, formatDuration } from '../ui/format';
import { StatusBadge } from '../ui/status-badge';

function CreatedAsset({ assetId }: { assetId: string }) {
  const asset = useAsset(assetId);
  return (
    <span className="flex items-center gap-2">
      <Link href={`/assets/${assetId}`} className={`font-mono text-xs text-indigo-700 underline ${FOCUS_RING}`}>
        {assetId}
      </Link>
      {asset.data && <StatusBadge status={asset.data.status} />}
    </span>
  );
}

const STATUS_TEXT: Record<UploadItem['status'], string> = {
  creating: 'Starting…',
  uploading: 'Uploading',
  paused: 'Paused',
  finishing: 'Creating the asset…',
  asset_created: 'Uploaded',
  cancelled: 'Cancelled',
  errored: 'Failed',
};

export function UploadRow({
  item,
  onPause,
  onResume,
  onCancel,
}: {
  item: UploadItem;
  onPause: () => void;
  onResume: () => void;
  onCancel: () => void;
}) {
  const remaining = remainingSeconds(item);
  const active = item.status === 'uploading' || item.status === 'paused' || item.status === 'creating';
  return (
    <li className="rounded-md border border-zinc-200 bg-white p-3 text-sm" data-upload-status={item.status}>
      <div className="flex flex-wrap items-center gap-2">
        <span className="min-w-0 flex-1 truncate font-medium">{item.name}</span>
        <span className="text-zinc-500">{formatBytes(item.size)}</span>
      </div>
      <progress
        className="mt-2 h-2 w-full accent-indigo-600"
        max={100}
        value={item.percent}
        aria-label={`Upload progress of ${item.name}`}
      />
      <div className="mt-1 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-zinc-600">
        <span>
          {STATUS_TEXT[item.status]} · {Math.floor(item.percent)}%
        </span>
        {item.status === 'uploading' && item.bytesPerSecond !== undefined && (
          <span>
            {formatBytes(item.bytesPerSecond)}/s{remaining !== undefined && ` · ${formatDuration(remaining)} left`}
          </span>
        )}
        {item.error && <span className="text-red-700">{item.error}</span>}
        {item.assetId && <CreatedAsset assetId={item.assetId} />}
        <span className="ml-auto flex gap-1">
          {item.status === 'uploading' && (
            <Button variant="secondary" className="px-2 py-1 text-xs" onClick={onPause} aria-label={`Pause ${item.name}`}>
              Pause
            </Button>
          )}
          {item.status === 'paused' && (
            <Button variant="secondary" className="px-2 py-1 text-xs" onClick={onResume} aria-label={`Resume ${item.name}`}>
              Resume
            </Button>
          )}
          {active && (
            <Button variant="ghost" className="px-2 py-1 text-xs text-red-700" onClick={onCancel} aria-label={`Cancel ${item.name}`}>
              Cancel
            </Button>
          )}
        </span>
      </div>
    </li>
  );
}
