import type { MediaProbe } from '../../media/ffprobe';
import type { MaxResolutionTier } from '../../media/encoding-tiers';
import { aspectRatio, maxStoredFrameRate, primaryVideo, resolutionTier } from '../../media/media-summary';
import type { AudioTrack, Track, VideoTrack } from '../../schemas/asset';

// Turns a probe into the asset fields Mux reports once an input has been inspected.

export type AssetMediaFields = {
  durationSeconds: number;
  aspectRatio: string | null;
  maxFrameRate: number | null;
  resolutionTier: string;
  tracks: Track[];
};

const roundDuration = (seconds: number) => Math.round(seconds * 1e6) / 1e6;

export const channelLayoutName = (layout: string | null, channels: number): string | undefined => {
  const base = layout?.replace(/\(.*\)$/, '');
  if (base) return base;
  return channels === 1 ? 'mono' : channels === 2 ? 'stereo' : undefined;
};

export const assetMediaFields = ({
  probe,
  maxResolutionTier,
  newTrackId,
  durationCapSeconds,
}: {
  probe: MediaProbe;
  maxResolutionTier: MaxResolutionTier;
  newTrackId: () => string;
  durationCapSeconds?: number;
}): AssetMediaFields => {
  const rawDuration = probe.durationSeconds ?? 0;
  const duration = roundDuration(durationCapSeconds ? Math.min(rawDuration, durationCapSeconds) : rawDuration);
  const trackDuration = (seconds: number | null) =>
    roundDuration(Math.min(seconds ?? duration, durationCapSeconds ?? Number.POSITIVE_INFINITY));

  const video = primaryVideo(probe);
  const tracks: Track[] = [];
  if (video) {
    const frameRate = maxStoredFrameRate(probe);
    const videoTrack: VideoTrack = {
      id: newTrackId(),
      type: 'video',
      duration: trackDuration(video.durationSeconds),
      max_width: video.displayWidth,
      max_height: video.displayHeight,
      max_frame_rate: frameRate,
    };
    tracks.push(videoTrack);
  }
  probe.audio.forEach((audio, position) => {
    const layout = channelLayoutName(audio.channelLayout, audio.channels);
    const audioTrack: AudioTrack = {
      id: newTrackId(),
      type: 'audio',
      duration: trackDuration(audio.durationSeconds),
      max_channels: audio.channels,
      ...(layout && { max_channel_layout: layout }),
      primary: position === 0,
      ...(audio.language && { language_code: audio.language }),
    };
    tracks.push(audioTrack);
  });

  return {
    durationSeconds: duration,
    aspectRatio: video ? aspectRatio(video.displayWidth, video.displayHeight) : null,
    maxFrameRate: video ? maxStoredFrameRate(probe) : null,
    resolutionTier: resolutionTier(probe, maxResolutionTier),
    tracks,
  };
};
