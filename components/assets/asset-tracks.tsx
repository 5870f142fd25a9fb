import type { AssetJson } from '../hooks/dashboard-types';

export function AssetTracks({ asset }: { asset: AssetJson }) {
  const tracks = asset.tracks ?? [];
  return (
    <section aria-labelledby="tracks-heading" className="space-y-2">
      <h2 id="tracks-heading" className="text-lg font-semibold">
        Tracks
      </h2>
      {tracks.length === 0 ? (
        <p className="text-sm text-zinc-600">{asset.status === 'preparing' ? 'Tracks appear once the input is probed.' : 'No tracks.'}</p>
      ) : (
        <ul className="space-y-1 text-sm">
          {tracks.map((track) => (
            <li key={track.id} className="rounded-md border border-zinc-200 bg-white px-3 py-2">
              <span className="font-medium capitalize">{track.type}</span>{' '}
              {track.type === 'video'
                ? `${track.max_width}×${track.max_height} at ${track.max_frame_rate} fps`
                : track.type === 'audio'
                  ? `${track.max_channels ?? '?'} channel${track.max_channels === 1 ? '' : 's'}${track.language_code ? ` · ${track.language_code}` : ''}`
                  : `${track.name}${track.language_code ? ` · ${track.language_code}` : ''} · ${track.status}`}
              {track.type !== 'text' && track.duration !== undefined && ` · ${track.duration.toFixed(2)} s`}
              <span className="block font-mono text-xs break-all text-zinc-500">{track.id}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
