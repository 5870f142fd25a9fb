import type { MaxResolutionTier } from './encoding-tiers';
import type { AudioStreamInfo, MediaProbe, VideoStreamInfo } from './ffprobe';

export type ResolutionTier = 'audio-only' | '720p' | '1080p' | '1440p' | '2160p';

export function primaryVideo(probe: MediaProbe): VideoStreamInfo | null {
  return probe.video.find((stream) => !stream.isAttachedPicture) ?? null;
}

export function primaryAudio(probe: MediaProbe): AudioStreamInfo | null {
  return probe.audio[0] ?? null;
}

const COMMON_RATIOS: ReadonlyArray<readonly [number, number]> = [
  [16, 9], [9, 16], [4, 3], [3, 4], [1, 1], [3, 2], [2, 3], [5, 4], [4, 5], [8, 5], [5, 8], [2, 1], [1, 2],
];
// Encoders round odd sizes (853x480, 1920x1088); within this tolerance we report the intended ratio.
const RATIO_TOLERANCE = 0.01;

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

export function aspectRatio(width: number, height: number): string {
  const w = Math.round(width);
  const h = Math.round(height);
  if (!(w > 0 && h > 0)) throw new RangeError(`aspectRatio needs positive dimensions, got ${width}x${height}`);
  const actual = w / h;
  let best: { label: string; error: number } | null = null;
  for (const [cw, ch] of COMMON_RATIOS) {
    const error = Math.abs(actual - cw / ch) / (cw / ch);
    if (error <= RATIO_TOLERANCE && (best === null || error < best.error)) best = { label: `${cw}:${ch}`, error };
  }
  if (best) return best.label;
  const divisor = gcd(w, h);
  return `${w / divisor}:${h / divisor}`;
}

const TIER_ORDER: readonly ResolutionTier[] = ['audio-only', '720p', '1080p', '1440p', '2160p'];

function tierForPixels(pixels: number): Exclude<ResolutionTier, 'audio-only'> {
  if (pixels <= 1280 * 720) return '720p';
  if (pixels <= 1920 * 1080) return '1080p';
  if (pixels <= 2560 * 1440) return '1440p';
  return '2160p';
}

export function resolutionTier(probe: MediaProbe, maxResolutionTier: MaxResolutionTier): ResolutionTier {
  const video = primaryVideo(probe);
  if (!video) return 'audio-only';
  const natural = tierForPixels(video.displayWidth * video.displayHeight);
  return TIER_ORDER.indexOf(natural) > TIER_ORDER.indexOf(maxResolutionTier) ? maxResolutionTier : natural;
}

/** Mux reports -1 when the frame rate is unknown. */
export function maxStoredFrameRate(probe: MediaProbe): number {
  const rates = probe.video
    .filter((stream) => !stream.isAttachedPicture)
    .map((stream) => stream.frameRate)
    .filter((fps): fps is number => fps !== null && fps > 0);
  if (rates.length === 0) return -1;
  return Math.round(Math.max(...rates) * 1000) / 1000;
}
