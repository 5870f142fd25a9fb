// The rendition ladder the playback contract promises for a source, computed independently of the
// server so the specs can compare the multivariant playlist with it rung by rung.

export type EncodingTier = 'smart' | 'baseline' | 'premium';
export type ResolutionTier = '1080p' | '1440p' | '2160p';

export type ExpectedRung = {
  /** Playlist name: `720p`, or `478p` for a source-sized top rung. */
  name: string;
  /** Short side (the number in the name). */
  short: number;
  width: number;
  height: number;
  /**
   * Accepted sizes. One entry for 16:9 / 9:16 and source-sized rungs; for other aspect ratios the
   * contract only says "keep the aspect, both dimensions even", so both even neighbours of the
   * exact long side are accepted.
   */
  accepted: Array<{ width: number; height: number }>;
};

export const LADDER_HEIGHTS: Record<EncodingTier, number[]> = {
  smart: [270, 360, 540, 720, 1080, 1440, 2160],
  baseline: [360, 540, 720, 1080],
  // Premium has plus's rungs; only its quality target per segment is higher.
  premium: [270, 360, 540, 720, 1080, 1440, 2160],
};

export const TIER_HEIGHT: Record<ResolutionTier, number> = { '1080p': 1080, '1440p': 1440, '2160p': 2160 };

const evenDown = (value: number) => 2 * Math.floor(value / 2);
const evenNearest = (value: number) => 2 * Math.round(value / 2);

const scaledRung = (width: number, height: number, short: number): ExpectedRung => {
  const landscape = width >= height;
  const sourceShort = Math.min(width, height);
  const sourceLong = Math.max(width, height);
  const orient = (long: number) => (landscape ? { width: long, height: short } : { width: short, height: long });
  let longs: number[];
  if (sourceLong * 9 === sourceShort * 16) {
    longs = [(short * 16) / 9];
  } else {
    const exact = (short * sourceLong) / sourceShort;
    longs = [...new Set([evenDown(exact), evenDown(exact) + (exact % 2 === 0 ? 0 : 2)])];
  }
  const accepted = longs.map(orient);
  const preferred = orient(evenNearest((short * sourceLong) / sourceShort));
  return { name: `${short}p`, short, ...(sourceLong * 9 === sourceShort * 16 ? accepted[0]! : preferred), accepted };
};

const sourceSizedRung = (width: number, height: number): ExpectedRung => {
  const size = { width: evenDown(width), height: evenDown(height) };
  const short = Math.min(size.width, size.height);
  return { name: `${short}p`, short, ...size, accepted: [size] };
};

/**
 * Video rungs for a source of display size width x height (rotation applied), lowest first.
 * Rules: rungs of the tier up to min(short side, max_resolution_tier); baseline never above 1080p;
 * a single source-sized rung below the lowest rung; a source-sized top rung when the short side is
 * between two allowed rungs and more than 10 % above the highest included one.
 */
export const expectedLadder = (
  width: number,
  height: number,
  { tier = 'smart', maxResolutionTier = '1080p' }: { tier?: EncodingTier; maxResolutionTier?: ResolutionTier } = {},
): ExpectedRung[] => {
  const cap = tier === 'baseline' ? 1080 : TIER_HEIGHT[maxResolutionTier];
  const sourceShort = Math.min(width, height);
  const heights = LADDER_HEIGHTS[tier].filter((rung) => rung <= cap);
  const included = heights.filter((rung) => rung <= sourceShort);
  if (included.length === 0) return [sourceSizedRung(width, height)];
  const rungs = included.map((short) => scaledRung(width, height, short));
  const highest = included.at(-1)!;
  const next = heights.find((rung) => rung > highest);
  if (next !== undefined && sourceShort < next && sourceShort > highest * 1.1) rungs.push(sourceSizedRung(width, height));
  return rungs;
};

export type ActualRung = { name: string; width: number; height: number };

/** Differences between the playlist's rungs and the expected ones (empty when they agree). */
export const ladderDifferences = (actual: ActualRung[], expected: ExpectedRung[]): string[] => {
  const problems: string[] = [];
  const byName = new Map(actual.map((rung) => [rung.name, rung]));
  for (const rung of expected) {
    const found = byName.get(rung.name);
    if (!found) {
      problems.push(`missing rung ${rung.name} (${rung.width}x${rung.height})`);
      continue;
    }
    if (!rung.accepted.some((size) => size.width === found.width && size.height === found.height)) {
      problems.push(
        `rung ${rung.name} is ${found.width}x${found.height}, expected ${rung.accepted.map((size) => `${size.width}x${size.height}`).join(' or ')}`,
      );
    }
    byName.delete(rung.name);
  }
  for (const extra of byName.values()) problems.push(`unexpected rung ${extra.name} (${extra.width}x${extra.height})`);
  if (new Set(actual.map((rung) => rung.name)).size !== actual.length) problems.push(`duplicate rung names: ${actual.map((rung) => rung.name)}`);
  return problems;
};

export const describeLadder = (rungs: Array<{ name: string; width: number; height: number }>): string =>
  rungs.map((rung) => `${rung.name}=${rung.width}x${rung.height}`).join(', ');
