// The live ladder: what one broadcast is transcoded into, sized for a small machine. On 2 cores a
// 1080p30 source passed through plus 720p and 360p encoded with x264 `superfast` runs at about
// 1.6× real time (live-streaming.md §3), so the source is never re-encoded and at most a couple of
// lower rungs are. Rungs are named after their short side, like the on-demand ladder.

import { LIVE_SOURCE_RENDITION, PRIMARY_AUDIO_RENDITION, rungName } from '../names';

export type LiveSourceInfo = {
  video?: { codec: string; width: number; height: number; frameRate?: number };
  audio?: { codec: string; sampleRate: number; channels: number };
};

export type LiveRung =
  | { name: string; kind: 'copy' }
  | { name: string; kind: 'encode'; width: number; height: number; videoBitrate: number; maxRate: number; bufSize: number }
  | { name: typeof PRIMARY_AUDIO_RENDITION; kind: 'audio-only' };

export type EncodedLiveRung = Extract<LiveRung, { kind: 'encode' }>;

// Short side and video bitrate of the encodable rungs, highest first. `superfast` with
// `zerolatency` (no lookahead, no B-frames) needs somewhat more bits than the on-demand encodes
// for the same look, hence rates a little above the on-demand ladder's.
const ENCODED_RUNGS = [
  { shortSide: 720, videoBitrate: 3_000_000 },
  { shortSide: 480, videoBitrate: 1_500_000 },
  { shortSide: 360, videoBitrate: 800_000 },
] as const;

// Peaks may reach 1.2× the average, smoothed over a one-second buffer: a part of 0.5 s then never
// carries much more than its share, which keeps the players' bandwidth estimates steady.
const MAX_RATE_FACTOR = 1.2;

const even = (value: number) => Math.max(2, Math.round(value / 2) * 2);

const encodedRung = (shortSide: number, videoBitrate: number, source: { width: number; height: number }): EncodedLiveRung => {
  const sourceShort = Math.min(source.width, source.height);
  const long = even((Math.max(source.width, source.height) * shortSide) / sourceShort);
  const portrait = source.height > source.width;
  const maxRate = Math.round(videoBitrate * MAX_RATE_FACTOR);
  return {
    name: rungName(shortSide),
    kind: 'encode',
    width: portrait ? shortSide : long,
    height: portrait ? long : shortSide,
    videoBitrate,
    maxRate,
    bufSize: maxRate,
  };
};

/**
 * Rung 0 is the source passed through; below it up to `maxEncodedRungs` encoded rungs smaller than
 * the source. When fewer rungs fit the budget than the source allows, the lowest (360p) is kept,
 * as viewers on weak networks need it most, and the rest are taken from the top (1080p source, two
 * rungs: 720p and 360p). Audio-only streams get the audio alone.
 */
export const planLiveLadder = (source: LiveSourceInfo, { maxEncodedRungs, audioOnly }: { maxEncodedRungs: number; audioOnly: boolean }): LiveRung[] => {
  if (audioOnly) {
    if (!source.audio) throw new Error('An audio-only live stream needs an audio track');
    return [{ name: PRIMARY_AUDIO_RENDITION, kind: 'audio-only' }];
  }
  const video = source.video;
  if (!video) throw new Error('The live source has no video track');
  if (video.codec !== 'h264') throw new Error(`Live video must be H.264 to be passed through, got ${video.codec}`);
  if (!Number.isInteger(maxEncodedRungs) || maxEncodedRungs < 0) throw new RangeError(`maxEncodedRungs must be a whole number ≥ 0, got ${maxEncodedRungs}`);

  const sourceShort = Math.min(video.width, video.height);
  const candidates = ENCODED_RUNGS.filter((rung) => rung.shortSide < sourceShort);
  const chosen =
    candidates.length <= maxEncodedRungs
      ? candidates
      : maxEncodedRungs === 0
        ? []
        : [...candidates.slice(0, maxEncodedRungs - 1), candidates[candidates.length - 1]!];
  return [{ name: LIVE_SOURCE_RENDITION, kind: 'copy' }, ...chosen.map((rung) => encodedRung(rung.shortSide, rung.videoBitrate, video))];
};
