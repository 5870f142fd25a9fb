import type { LiveStreamJson } from '../hooks/dashboard-types';
import { CopyButton } from '../ui/copy-button';

// Viewers play the live stream at the same URL shape as an asset.
export function LivePlaybackIds({ stream, streamUrl }: { stream: LiveStreamJson; streamUrl: string }) {
  const playbackIds = stream.playback_ids ?? [];
  return (
    <section aria-labelledby="live-playback-ids-heading" className="space-y-3">
      <h2 id="live-playback-ids-heading" className="text-lg font-semibold">
        Playback IDs
      </h2>
      {playbackIds.length === 0 && <p className="text-sm text-zinc-600">No playback IDs: add one through the API to let viewers watch.</p>}
      <ul className="space-y-2">
        {playbackIds.map((playbackId) => {
          const url = `${streamUrl}/${playbackId.id}.m3u8`;
          return (
            <li key={playbackId.id} className="rounded-md border border-zinc-200 bg-white p-3 text-sm">
              <div className="flex flex-wrap items-center gap-2">
                <span className="min-w-0 font-mono break-all">{playbackId.id}</span>
                <span className="rounded bg-zinc-100 px-1.5 text-xs">{playbackId.policy}</span>
              </div>
              <div className="mt-2 flex items-center gap-2">
                <code className="min-w-0 flex-1 truncate text-xs text-zinc-600" data-testid="live-stream-url">
                  {url}
                </code>
                <CopyButton value={url} label="Copy stream URL" />
              </div>
              {playbackId.policy === 'signed' && (
                <p className="mt-1 text-xs text-zinc-500">Signed: append ?token= with a JWT made from a signing key.</p>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
