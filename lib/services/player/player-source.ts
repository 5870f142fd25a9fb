// What the player page knows about the video behind a playback ID (see find-player-source.ts).
export type PlayerSource = {
  playbackId: string;
  kind: 'asset' | 'live_stream';
  signed: boolean;
  /** The asset's or live stream's `meta.title`, if any. */
  title: string | null;
  /** The picture's aspect ratio (16:9 when unknown, as for live streams). */
  aspectRatio: AspectRatio;
  /** Assets only: preparing, ready or errored. Live streams play whatever their state. */
  status: 'preparing' | 'ready' | 'errored';
};

export type AspectRatio = { width: number; height: number };

export const DEFAULT_ASPECT_RATIO: AspectRatio = { width: 16, height: 9 };

/** "16:9" as stored on assets; anything unusable → 16:9. */
export const aspectRatioOf = (stored: string | null): AspectRatio => {
  const match = stored ? /^(\d{1,5}):(\d{1,5})$/.exec(stored) : null;
  const width = Number(match?.[1]);
  const height = Number(match?.[2]);
  return width > 0 && height > 0 ? { width, height } : DEFAULT_ASPECT_RATIO;
};
