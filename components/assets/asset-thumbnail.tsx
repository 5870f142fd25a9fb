'use client';

import { useState } from 'react';
import type { AssetJson } from '../hooks/dashboard-types';

// The image API (/{playback_id}/thumbnail.webp) serves public playback IDs; anything else, or an
// image that fails (still preparing, errored, signed only), shows a neutral placeholder.
export function AssetThumbnail({ asset, width = 160 }: { asset: AssetJson; width?: number }) {
  const [failed, setFailed] = useState(false);
  const publicId = asset.playback_ids?.find((playbackId) => playbackId.policy === 'public')?.id;
  const box = 'aspect-video w-28 shrink-0 overflow-hidden rounded bg-zinc-200';
  if (!publicId || asset.status !== 'ready' || failed) {
    return (
      <div className={`${box} flex items-center justify-center text-zinc-400`} aria-hidden="true">
        <svg viewBox="0 0 24 24" className="h-6 w-6" fill="currentColor">
          <path d="M4 5h16a1 1 0 0 1 1 1v12a1 1 0 0 1-1 1H4a1 1 0 0 1-1-1V6a1 1 0 0 1 1-1Zm6 4v6l5-3-5-3Z" />
        </svg>
      </div>
    );
  }
  return (
    <img
      src={`/${publicId}/thumbnail.webp?width=${width}`}
      alt=""
      loading="lazy"
      className={`${box} object-cover`}
      onError={() => setFailed(true)}
    />
  );
}
