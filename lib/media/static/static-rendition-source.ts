import type { Rung } from '../hls/ladder';
import { shortSideOfResolution } from '../names';

// Which of the asset's renditions a static rendition (MP4/M4A download) is remuxed from. The file
// is never encoded on its own: it is the rung's just-in-time segments plus the audio track, so it
// matches what players stream and reuses segments already encoded for them.
//
// Legacy `mp4_support` names, which Mux never tied to exact sizes:
//   capped-1080p, high → the top rung of at most 1080p
//   medium             → the top rung of at most 720p
//   low                → the top rung of at most 360p (the lowest rung when none is that small)

export type StaticRenditionSource =
  | { kind: 'video'; rung: Rung }
  | { kind: 'audio' }
  | { kind: 'unavailable'; status: 'skipped' | 'errored'; reason: string };

const shortSide = (rung: Rung): number => Math.min(rung.width, rung.height);

const topRungUpTo = (rungs: Rung[], limit: number): Rung | undefined => rungs.filter((rung) => shortSide(rung) <= limit).at(-1);

const CAPS: Record<string, number> = { 'capped-1080p': 1080, high: 1080, medium: 720, low: 360 };

export const staticRenditionSource = ({
  resolution,
  viaMp4Support,
  rungs,
  hasAudio,
}: {
  resolution: string;
  viaMp4Support: boolean;
  /** The asset's ladder, lowest first, background rungs (above 1080p) included. */
  rungs: Rung[];
  hasAudio: boolean;
}): StaticRenditionSource => {
  if (resolution === 'audio-only') {
    if (hasAudio) return { kind: 'audio' };
    // Mux: the legacy setting errors on a video-only asset; the new API skips what the asset cannot give.
    return { kind: 'unavailable', status: viaMp4Support ? 'errored' : 'skipped', reason: 'The asset has no audio track' };
  }
  const top = rungs.at(-1);
  if (!top) return { kind: 'unavailable', status: 'skipped', reason: 'The asset has no video track' };
  if (resolution === 'highest') return { kind: 'video', rung: top };
  const cap = CAPS[resolution];
  if (cap !== undefined) return { kind: 'video', rung: topRungUpTo(rungs, cap) ?? rungs[0]! };
  const requested = shortSideOfResolution(resolution);
  if (requested === null) return { kind: 'unavailable', status: 'errored', reason: `Unknown static rendition resolution "${resolution}"` };
  const named = rungs.find((rung) => rung.name === resolution);
  if (named) return { kind: 'video', rung: named };
  if (requested > shortSide(top)) {
    return { kind: 'unavailable', status: 'skipped', reason: `The asset's video (${top.width}x${top.height}) is smaller than ${resolution}` };
  }
  return {
    kind: 'unavailable',
    status: 'skipped',
    reason: `${resolution} is not one of this asset's renditions (${rungs.map((rung) => rung.name).join(', ')})`,
  };
};
