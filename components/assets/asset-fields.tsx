import Link from 'next/link';
import type { AssetJson } from '../hooks/dashboard-types';
import { formatDuration, formatUnixSeconds } from '../ui/format';
import { StatusBadge } from '../ui/status-badge';
import { FieldList, type FieldRow } from '../ui/field-list';

// Every top-level field of the asset that is not shown in its own panel.
export function AssetFields({ asset }: { asset: AssetJson }) {
  const rows: FieldRow[] = [
    ['Status', <StatusBadge key="status" status={asset.status} />],
    ['Asset ID', <span key="id" className="font-mono">{asset.id}</span>],
    ['Created', formatUnixSeconds(asset.created_at)],
    ['Duration', asset.duration === undefined ? '—' : `${formatDuration(asset.duration)} (${asset.duration} s)`],
    ['Aspect ratio', asset.aspect_ratio ?? '—'],
    ['Resolution tier', asset.resolution_tier ?? '—'],
    ['Max resolution tier', asset.max_resolution_tier],
    ['Max stored resolution', asset.max_stored_resolution ?? '—'],
    ['Max frame rate', asset.max_stored_frame_rate ?? '—'],
    ['Video quality', `${asset.video_quality} (encoding_tier ${asset.encoding_tier})`],
    ['Progress', asset.progress ? `${asset.progress.state}${asset.progress.progress >= 0 ? ` · ${asset.progress.progress}%` : ''}` : '—'],
    ['Ingest type', asset.ingest_type],
    ['Upload ID', asset.upload_id ?? '—'],
    ['Passthrough', asset.passthrough ?? '—'],
    ['Meta', asset.meta ? Object.entries(asset.meta).map(([key, value]) => `${key}: ${value}`).join(', ') : '—'],
    ['Test asset', asset.test ? 'yes (deleted after 24 h)' : 'no'],
    ['MP4 support', asset.mp4_support],
    ['Master access', asset.master_access],
    ...(asset.source_asset_id
      ? ([['Clipped from', <Link key="source" className="font-mono text-indigo-700 underline" href={`/assets/${asset.source_asset_id}`}>{asset.source_asset_id}</Link>]] as FieldRow[])
      : []),
  ];
  return <FieldList rows={rows} />;
}
