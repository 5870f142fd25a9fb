import { sourceColourOf, type SourceColour } from '../../media/colour/sdr-conversion';
import type { MediaProbe } from '../../media/ffprobe';
import { audioOutputChannels, buildAudioSegmentDurations } from '../../media/hls/audio-plan';
import type { EncodingTier, MaxResolutionTier } from '../../media/encoding-tiers';
import { buildLadder, type Rung } from '../../media/hls/ladder';
import { buildSegmentPlan, type SegmentPlan } from '../../media/hls/segment-plan';
import { primaryAudio, primaryVideo } from '../../media/media-summary';
import type { OverlaySettings } from '../../media/overlay/overlay-settings';

// Everything playback needs, decided at ingest before the asset is ready: the video segment plan,
// the ladder, and the audio rendition's layout. Nothing is encoded yet.

export type PlaybackPlan = {
  video: SegmentPlan | null;
  rungs: Rung[];
  /** The primary audio track's rendition (`channels`: 2, or 1 for a mono track; plans made before mono was kept say 2). */
  audio: { duration: number; channels: number; segmentDurations: number[] } | null;
  /** Watermarks, in stacking order (see fetch-overlays.ts); absent on assets without any. */
  overlays?: PlannedOverlay[];
  /**
   * The source is HDR or wide-gamut and every picture made from it is converted to SDR BT.709 (see
   * sdr-conversion.ts); absent for SDR sources, and in plans made before sources were converted
   * (their segments were encoded unconverted, and stay so: segments are immutable).
   */
  sourceColour?: SourceColour;
};

/** A watermark as fetched at ingest: its normalised image's size and where it goes. */
/** One segment of one rung of an asset's plan: what a just-in-time video encode makes. */
export type SegmentRequest = { assetId: string; plan: PlaybackPlan; rung: Rung; index: number };

export type PlannedOverlay = { width: number; height: number; settings: OverlaySettings };

const FALLBACK_FRAME_RATE = 30;

export const buildPlaybackPlan = ({
  probe,
  encodingTier,
  maxResolutionTier,
  durationCapSeconds,
}: {
  probe: MediaProbe;
  encodingTier: EncodingTier;
  maxResolutionTier: MaxResolutionTier;
  durationCapSeconds?: number;
}): PlaybackPlan => {
  const cap = (seconds: number | null) =>
    Math.min(seconds ?? probe.durationSeconds ?? 0, durationCapSeconds ?? Number.POSITIVE_INFINITY);
  const video = primaryVideo(probe);
  const audio = primaryAudio(probe);

  const frameRate = video?.frameRate ?? FALLBACK_FRAME_RATE;
  const videoDuration = video ? cap(video.durationSeconds) : 0;
  const hasVideo = video !== null && videoDuration > 0;
  const audioDuration = audio ? cap(audio.durationSeconds) : 0;
  const sourceColour = hasVideo ? sourceColourOf(video) : null;

  return {
    video: hasVideo ? buildSegmentPlan({ duration: videoDuration, frameRate, constantFrameRate: video.constantFrameRate }) : null,
    rungs: hasVideo
      ? buildLadder({
          display: { width: video.displayWidth, height: video.displayHeight },
          frameRate: video.frameRate,
          encodingTier,
          maxResolutionTier,
        })
      : [],
    audio:
      audio && audioDuration > 0
        ? { duration: audioDuration, channels: audioOutputChannels(audio.channels), segmentDurations: buildAudioSegmentDurations(audioDuration) }
        : null,
    ...(sourceColour && { sourceColour }),
  };
};
