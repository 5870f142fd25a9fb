import { shortSideOfRungName } from '../../media/names';
import type { RungCost } from '../../schemas/encoding-load';
import { playbackState } from './playback-state';

// What an encode of one second of media costs, per rung, measured on this machine from real
// encodes: CPU seconds of the ffmpeg run (decoding the source included, as ffmpeg reports them,
// see cpu-report.ts) per second of media it produced, smoothed. CPU time, not wall-clock time: it
// is what the rung takes from the machine whatever else runs beside it and at whatever priority,
// so it neither rises with a burst of load nor stays high after it. The encoders' capacity is in
// the same unit: one slot is one core (JIT_ENCODE_CONCURRENCY defaults to the cores), and a run
// given a core to itself takes about its CPU time.

// Weight of the newest sample: about the last ten encodes of a rung make up its estimate.
const SMOOTHING = 0.2;


declare module './playback-state' {
  interface PlaybackState {
    /** Each rung's smoothed cost on this machine. */
    encodeCosts: Map<string, RungCost>;
  }
}

const costs = () => playbackState().encodeCosts;

export const recordEncodeCost = ({ rung, cpuSeconds, mediaSeconds }: { rung: string; cpuSeconds: number; mediaSeconds: number }): void => {
  if (!(mediaSeconds > 0) || !(cpuSeconds >= 0)) return;
  const sample = cpuSeconds / mediaSeconds;
  const known = costs().get(rung);
  costs().set(rung, {
    rung,
    samples: (known?.samples ?? 0) + 1,
    secondsPerMediaSecond: known ? known.secondsPerMediaSecond + SMOOTHING * (sample - known.secondsPerMediaSecond) : sample,
  });
};

export const rungCosts = (): RungCost[] => [...costs().values()].map((cost) => ({ ...cost }));

// Part of a segment encode's CPU does not depend on the rung: decoding the source (on a 1080p
// camera-like source about half of the 270p rung's cost, a third of the 1080p one's, measured by
// the benchmark's capacity phase). Scaling a measured rung by pixels alone made the lower rungs look
// four times cheaper than they are, and admitted more viewers than the machine could carry.
// Several rungs of one segment encoded in one run share that part (joint-segment-encodes.ts).
export const FIXED_SHARE = 0.5;

const pixelsOfRung = (rung: string): number | null => {
  const side = shortSideOfRungName(rung);
  return side === null ? null : side * side;
};

/**
 * CPU seconds of encoding per second of media for a rung: its own measurement, or, before it has
 * one, an estimate from the measured rungs: a straight line in the pixel count through the two
 * nearest in size (the fixed decode plus the rung's own work; same aspect ratio assumed), or from a
 * single one, half of its cost taken as fixed. Null when nothing comparable has been measured yet.
 */
export const encodeCostPerMediaSecond = (rung: string): { secondsPerMediaSecond: number; measured: boolean } | null => {
  const own = costs().get(rung);
  if (own) return { secondsPerMediaSecond: own.secondsPerMediaSecond, measured: true };
  const pixels = pixelsOfRung(rung);
  if (pixels === null) return null;
  const measured = [...costs().values()]
    .map((cost) => ({ cost: cost.secondsPerMediaSecond, pixels: pixelsOfRung(cost.rung) }))
    .filter((entry): entry is { cost: number; pixels: number } => entry.pixels !== null)
    .sort((a, b) => Math.abs(Math.log(a.pixels / pixels)) - Math.abs(Math.log(b.pixels / pixels)));
  const [nearest, next] = measured;
  if (!nearest) return null;
  const fromOne = nearest.cost * (FIXED_SHARE + (1 - FIXED_SHARE) * (pixels / nearest.pixels));
  if (!next || next.pixels === nearest.pixels) return { secondsPerMediaSecond: fromOne, measured: false };
  const slope = (next.cost - nearest.cost) / (next.pixels - nearest.pixels);
  const onLine = nearest.cost + slope * (pixels - nearest.pixels);
  // Noisy samples can tilt the line the wrong way; the one-rung rule is the fallback.
  const estimate = slope > 0 && onLine > 0 ? onLine : fromOne;
  return { secondsPerMediaSecond: estimate, measured: false };
};

/**
 * Expected milliseconds of an encode of `mediaSeconds` of `rung` given a core (0 while nothing
 * comparable is measured); `share` of it: the rung's own encoding without the shared decode.
 */
export const expectedEncodeMs = (rung: string, mediaSeconds: number, share = 1): number =>
  (encodeCostPerMediaSecond(rung)?.secondsPerMediaSecond ?? 0) * share * mediaSeconds * 1000;

/** Forgets every measurement (tests). */
export const resetEncodeCosts = (): void => costs().clear();
