'use client';

import Link from 'next/link';
import type { LiveStreamRowJson } from '../hooks/dashboard-types';
import { FOCUS_RING } from '../ui/button';
import { formatUnixSeconds } from '../ui/format';
import { StatusBadge } from '../ui/status-badge';
import { liveStreamTitle } from './live-stream-title';

export function LiveStreamsTable({ liveStreams }: { liveStreams: LiveStreamRowJson[] }) {
  return (
    <div className="relative overflow-x-auto rounded-lg border border-zinc-200 bg-white">
      <table className="w-full min-w-[44rem] text-left text-sm">
        <thead className="border-b border-zinc-200 bg-zinc-50 text-xs text-zinc-600 uppercase">
          <tr>
            <th scope="col" className="px-3 py-2">Live stream</th>
            <th scope="col" className="px-3 py-2">Status</th>
            <th scope="col" className="px-3 py-2">Latency</th>
            <th scope="col" className="px-3 py-2">Playback ID</th>
            <th scope="col" className="px-3 py-2">Created</th>
          </tr>
        </thead>
        <tbody>
          {liveStreams.map((stream) => {
            const playbackId = stream.playback_ids?.[0];
            return (
              <tr key={stream.id} data-live-stream-id={stream.id} className="border-b border-zinc-100 last:border-0 hover:bg-zinc-50">
                <td className="max-w-[18rem] px-3 py-2">
                  <Link href={`/live-streams/${stream.id}`} className={`block truncate font-medium text-indigo-700 hover:underline ${FOCUS_RING}`}>
                    {liveStreamTitle(stream)}
                  </Link>
                  <span className="block truncate font-mono text-xs text-zinc-500">{stream.id}</span>
                </td>
                <td className="px-3 py-2">
                  <StatusBadge status={stream.status} />
                </td>
                <td className="px-3 py-2">{stream.latency_mode}</td>
                <td className="max-w-[16rem] px-3 py-2">
                  {playbackId ? (
                    <span className="flex items-center gap-2">
                      <span className="min-w-0 truncate font-mono text-xs" title={playbackId.id}>
                        {playbackId.id}
                      </span>
                      <span className="shrink-0 rounded bg-zinc-100 px-1.5 text-xs">{playbackId.policy}</span>
                    </span>
                  ) : (
                    '—'
                  )}
                </td>
                <td className="px-3 py-2 whitespace-nowrap text-zinc-600">{formatUnixSeconds(stream.created_at)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
