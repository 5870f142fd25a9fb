'use client';

import { useState } from 'react';
import type { LiveStreamJson } from '../hooks/dashboard-types';
import { PreviewPlayer } from '../player/preview-player';
import { liveStreamTitle } from './live-stream-title';

// A live playlist can fail to load in the moment between the stream going active and its first
// segments; the player then starts again after a short wait.
const RETRY_MS = 2000;

const placeholderText = (stream: LiveStreamJson, hasPublicId: boolean): string => {
  if (!hasPublicId) return 'The preview plays a public playback ID; this stream has only signed ones (play them with ?token=).';
  if (stream.status === 'disabled') return 'This stream is disabled: enable it to accept its publisher.';
  return 'Waiting for a publisher: the preview starts when the stream goes active.';
};

// The live playlist at STREAM_URL/{playback_id}.m3u8, played only while a broadcast runs: each new
// broadcast (a new active asset) mounts a new player, so it starts at the live edge.
export function LivePreview({ stream, streamUrl }: { stream: LiveStreamJson; streamUrl: string }) {
  const [attempt, setAttempt] = useState(0);
  const publicId = stream.playback_ids?.find((playbackId) => playbackId.policy === 'public')?.id;

  if (stream.status !== 'active' || !publicId) {
    return (
      <div className="flex aspect-video w-full items-center justify-center rounded-lg bg-zinc-200 p-4 text-center text-sm text-zinc-600" data-testid="live-preview-placeholder">
        {placeholderText(stream, publicId !== undefined)}
      </div>
    );
  }
  return (
    <PreviewPlayer
      key={`${stream.active_asset_id ?? 'broadcast'}-${attempt}`}
      src={`${streamUrl}/${publicId}.m3u8`}
      label="Live preview"
      analytics={{ videoId: stream.id, videoTitle: liveStreamTitle(stream), streamType: 'live' }}
      autoPlay
      onFatalError={() => setTimeout(() => setAttempt((current) => current + 1), RETRY_MS)}
    />
  );
}
