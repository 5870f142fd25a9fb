// The rendition ladders. Each rung is named after its short side, so a portrait 720x1280 rendition
// is "720p", like a landscape 1280x720 one. Bitrates are for video only; audio is a separate
// 128 kb/s AAC rendition shared by every rung.

import type { EncodingTier, MaxResolutionTier } from '../encoding-tiers';
import { rungName, shortSideOfResolution } from '../names';

export type Rung = {
  name: string;
  width: number;
  height: number;
  videoBitrate: number;
  maxBitrate: number;
  /**
   * Capped CRF: x264's quality target for every segment, under `maxBitrate` with a VBV buffer of
   * `bufferBits`. Absent in plans made before rate control adapted to the content: those rungs
   * encode at an average of `videoBitrate` (peak `maxBitrate`), as their cached segments were.
   */
  rateControl?: RateControl;
  level: string;
  codecs: string;
  frameRate: number | null;
  // Rungs above 1080p cannot be encoded in real time on a small machine; they are encoded in the
  // background after the asset is ready and listed once complete.
  isBackground: boolean;
};

export type RateControl = { crf: number; bufferBits: number };

type RungSpec = { shortSide: number; videoKbps: number };

const SMART_RUNGS: RungSpec[] = [
  { shortSide: 270, videoKbps: 400 },
  { shortSide: 360, videoKbps: 800 },
  { shortSide: 540, videoKbps: 1_600 },
  { shortSide: 720, videoKbps: 2_500 },
  { shortSide: 1080, videoKbps: 4_500 },
  { shortSide: 1440, videoKbps: 9_000 },
  { shortSide: 2160, videoKbps: 16_000 },
];

// Premium has smart's rungs, each with a higher quality target and cap (RATE_CONTROL).
export const LADDERS: Record<EncodingTier, RungSpec[]> = {
  smart: SMART_RUNGS,
  premium: SMART_RUNGS,
  baseline: [
    { shortSide: 360, videoKbps: 600 },
    { shortSide: 540, videoKbps: 1_200 },
    { shortSide: 720, videoKbps: 2_000 },
    { shortSide: 1080, videoKbps: 3_500 },
  ],
};

// x264 preset per rung: just-in-time encodes must stay ahead of a viewer, and on 2 cores a 4 s
// 1080p segment takes ~4.4 s with `veryfast` but ~3.1 s with `superfast` (measured here), so the
// 720p and 1080p rungs trade a little compression for speed. Background rungs are not time-critical.
export type X264Preset = 'veryfast' | 'superfast';
const presetFor = ({ shortSide, isBackground }: { shortSide: number; isBackground: boolean }): X264Preset =>
  isBackground || shortSide < 720 ? 'veryfast' : 'superfast';
export const presetForRung = (rung: Rung): X264Preset =>
  presetFor({ shortSide: Math.min(rung.width, rung.height), isBackground: rung.isBackground });

// Capped CRF per tier: `crf` is x264's quality target for every segment, per preset; `capFactor` ×
// the rung's nominal bitrate is its VBV maxrate, with a buffer of `bufferSeconds` at that rate.
// Every segment is an encode of its own that starts with a half-full buffer (peak-bitrate.ts), so a
// 4 s segment of hard content may spend maxrate × (4 + 0.25) s: smart's cap of 0.9 × nominal with
// half a second of buffer keeps that under the nominal average, about what the fixed-average rungs
// spent on such content. One CRF does not mean one quality across presets: `superfast` has no
// lookahead or macroblock tree, so at 720p easy content hits the cap on its hard frames at CRF 20
// and came out no better there than at 21.5 while spending 11 % more; the `veryfast` rungs lose
// SSIM first (540p, 360p), so they get half a step more. Smart's 19.5 / 21.5 keeps every rung of
// the quality bench within 0.002 SSIM of the fixed-average ladder (one CRF of 20 for all rungs
// left animation's 540p at −0.00205) for 31 % fewer bytes on animation. Chosen with the quality
// bench (`npm run bench -- --only quality`; docs/playback.md › Rate control).
type TierRateControl = { crf: Record<X264Preset, number>; capFactor: number; bufferSeconds: number };
const RATE_CONTROL: Record<EncodingTier, TierRateControl> = {
  baseline: { crf: { veryfast: 21.5, superfast: 23.5 }, capFactor: 0.9, bufferSeconds: 0.5 },
  smart: { crf: { veryfast: 19.5, superfast: 21.5 }, capFactor: 0.9, bufferSeconds: 0.5 },
  premium: { crf: { veryfast: 16.5, superfast: 18.5 }, capFactor: 1.5, bufferSeconds: 1 },
};

export const AUDIO_BITRATE = 128_000;
export const AUDIO_CODECS = 'mp4a.40.2';
const HIGH_FRAME_RATE_FACTOR = 1.5;
const SOURCE_RUNG_MARGIN = 1.1;

const TIER_CAP: Record<MaxResolutionTier, number> = { '1080p': 1080, '1440p': 1440, '2160p': 2160 };

// H.264 level limits (ITU-T H.264 Table A-1): max macroblocks per second, max frame size in
// macroblocks, max video bitrate in kb/s for the High profile (1.25 × the Baseline figure).
const LEVELS = [
  { name: '3.0', idc: 30, maxMbps: 40_500, maxFs: 1_620, maxKbps: 12_500 },
  { name: '3.1', idc: 31, maxMbps: 108_000, maxFs: 3_600, maxKbps: 17_500 },
  { name: '3.2', idc: 32, maxMbps: 216_000, maxFs: 5_120, maxKbps: 25_000 },
  { name: '4.0', idc: 40, maxMbps: 245_760, maxFs: 8_192, maxKbps: 25_000 },
  { name: '4.1', idc: 41, maxMbps: 245_760, maxFs: 8_192, maxKbps: 62_500 },
  { name: '4.2', idc: 42, maxMbps: 522_240, maxFs: 8_704, maxKbps: 62_500 },
  { name: '5.0', idc: 50, maxMbps: 589_824, maxFs: 22_080, maxKbps: 168_750 },
  { name: '5.1', idc: 51, maxMbps: 983_040, maxFs: 36_864, maxKbps: 300_000 },
  { name: '5.2', idc: 52, maxMbps: 2_073_600, maxFs: 36_864, maxKbps: 300_000 },
] as const;

export const h264Level = ({
  width,
  height,
  frameRate,
  maxBitrate,
}: {
  width: number;
  height: number;
  frameRate: number;
  maxBitrate: number;
}): { name: string; idc: number } => {
  const frameMbs = Math.ceil(width / 16) * Math.ceil(height / 16);
  const level =
    LEVELS.find(
      (candidate) =>
        frameMbs <= candidate.maxFs &&
        frameMbs * frameRate <= candidate.maxMbps &&
        maxBitrate / 1000 <= candidate.maxKbps,
    ) ?? LEVELS[8];
  return { name: level.name, idc: level.idc };
};

// avc1.PPCCLL: High profile (0x64), no constraint flags, level_idc in hex.
export const avcCodecs = (levelIdc: number): string => `avc1.6400${levelIdc.toString(16).padStart(2, '0')}`;

const even = (value: number) => Math.max(2, Math.round(value / 2) * 2);

const rungSize = (shortSide: number, display: { width: number; height: number }) => {
  const isPortrait = display.height > display.width;
  const sourceShort = Math.min(display.width, display.height);
  const sourceLong = Math.max(display.width, display.height);
  const long = even((sourceLong * shortSide) / sourceShort);
  const short = even(shortSide);
  return isPortrait ? { width: short, height: long } : { width: long, height: short };
};

// A source whose short side falls between two rungs gets a top rung at its own size, with a
// bitrate scaled from the rung below by pixel count (sub-linearly, as quality needs grow slower).
const sourceRungKbps = (shortSide: number, below: RungSpec | undefined, lowest: RungSpec): number => {
  const reference = below ?? lowest;
  return Math.round(reference.videoKbps * (shortSide / reference.shortSide) ** 1.5);
};

export const buildLadder = ({
  display,
  frameRate,
  encodingTier,
  maxResolutionTier,
}: {
  display: { width: number; height: number };
  frameRate: number | null;
  encodingTier: EncodingTier;
  maxResolutionTier: MaxResolutionTier;
}): Rung[] => {
  const cap = encodingTier === 'baseline' ? 1080 : TIER_CAP[maxResolutionTier];
  const sourceShort = Math.min(display.width, display.height);
  const specs = LADDERS[encodingTier];
  const [lowest] = specs;
  if (!lowest) return [];

  const included = specs.filter((spec) => spec.shortSide <= sourceShort && spec.shortSide <= cap);
  const top = included.at(-1);
  const sourceEven = even(sourceShort) > sourceShort ? even(sourceShort) - 2 : even(sourceShort);
  const needsSourceRung =
    sourceEven <= cap && (top === undefined ? true : sourceEven > top.shortSide * SOURCE_RUNG_MARGIN);
  const chosen = needsSourceRung
    ? [...included, { shortSide: sourceEven, videoKbps: sourceRungKbps(sourceEven, top, lowest) }]
    : included;

  const fps = frameRate ?? 30;
  const rateFactor = fps > 35 ? HIGH_FRAME_RATE_FACTOR : 1;
  const { crf, capFactor, bufferSeconds } = RATE_CONTROL[encodingTier];
  return chosen.map((spec) => {
    const { width, height } = rungSize(spec.shortSide, display);
    const videoBitrate = Math.round(spec.videoKbps * rateFactor) * 1000;
    const maxBitrate = Math.round(videoBitrate * capFactor);
    const isBackground = spec.shortSide > 1080;
    const preset = presetFor({ shortSide: Math.min(width, height), isBackground });
    const level = h264Level({ width, height, frameRate: fps, maxBitrate });
    return {
      name: rungName(spec.shortSide),
      width,
      height,
      videoBitrate,
      maxBitrate,
      rateControl: { crf: crf[preset], bufferBits: Math.round(maxBitrate * bufferSeconds) },
      level: level.name,
      codecs: avcCodecs(level.idc),
      frameRate,
      isBackground,
    };
  });
};

// `max_resolution` / `min_resolution` playback modifiers (e.g. "720p").
export const filterLadder = (rungs: Rung[], { max, min }: { max?: string; min?: string }): Rung[] => {
  const limit = (value: string | undefined) => (value === undefined ? undefined : (shortSideOfResolution(value) ?? undefined));
  const maxShort = limit(max);
  const minShort = limit(min);
  const shortSide = (rung: Rung) => Math.min(rung.width, rung.height);
  const kept = rungs.filter(
    (rung) => (maxShort === undefined || shortSide(rung) <= maxShort) && (minShort === undefined || shortSide(rung) >= minShort),
  );
  // Like Mux: when the filter removes everything, fall back to the nearest rung instead of nothing.
  if (kept.length > 0 || rungs.length === 0) return kept;
  return maxShort !== undefined ? rungs.slice(0, 1) : rungs.slice(-1);
};
