import Link from 'next/link';
import type { LiveStreamJson } from '../hooks/dashboard-types';
import { FOCUS_RING } from '../ui/button';
import { formatDuration, formatUnixSeconds } from '../ui/format';
import { StatusBadge } from '../ui/status-badge';
import { FieldList, type FieldRow } from '../ui/field-list';

const recordingText = (stream: LiveStreamJson): string => {
  const settings = stream.new_asset_settings;
  if (!settings) return 'off';
  const policies = settings.playback_policies;
  return Array.isArray(policies) && policies.length > 0 ? `on (${policies.join(', ')} playback)` : 'on (no playback ID)';
};

// The stream's settings as the API reports them.
export function LiveStreamFields({ stream }: { stream: LiveStreamJson }) {
  const rows: FieldRow[] = [
    ['Status', <StatusBadge key="status" status={stream.status} />],
    ['Live stream ID', <span key="id" className="font-mono">{stream.id}</span>],
    ['Created', formatUnixSeconds(stream.created_at)],
    ['Latency mode', stream.latency_mode],
    ['Reconnect window', `${stream.reconnect_window} s`],
    ['Max continuous duration', `${formatDuration(stream.max_continuous_duration)} (${stream.max_continuous_duration} s)`],
    ['Recording', recordingText(stream)],
    ['Generated captions', stream.generated_subtitles?.map((track) => `${track.name} (${track.language_code})`).join(', ') || 'off'],
    ...(stream.active_asset_id
      ? ([
          [
            'Recording now',
            <Link key="active" className={`font-mono text-indigo-700 underline ${FOCUS_RING}`} href={`/assets/${stream.active_asset_id}`}>
              {stream.active_asset_id}
            </Link>,
          ],
        ] as FieldRow[])
      : []),
    ['Passthrough', stream.passthrough ?? '—'],
    ['Test stream', stream.test ? 'yes (broadcasts end after 5 minutes)' : 'no'],
  ];
  return <FieldList rows={rows} />;
}
