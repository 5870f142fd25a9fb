import { shortSideOfRungName } from '../../media/names';
import type { RungCost } from '../../schemas/encoding-load';
import { playbackState } from './playback-state';

// What an encode of one second of media costs, per rung, measured on this machine from real
// encodes: wall-clock seconds of the ffmpeg run per second of media it produced, smoothed. Only
// encodes at normal CPU priority count: a nice-19 run's time says how busy the machine was, not
// what the rung costs. Wall-clock, not CPU time, because that is what a waiting viewer sees, with
// the other slots busy as they usually are.

// Weight of the newest sample: about the last ten encodes of a rung make up its estimate.
const SMOOTHING = 0.2;


declare module './playback-state' {
  interface PlaybackState {
    /** Each rung's smoothed cost on this machine. */
    encodeCosts: Map<string, RungCost>;
  }
}

const costs = () => playbackState().encodeCosts;

export const recordEncodeCost = ({ rung, wallSeconds, mediaSeconds }: { rung: string; wallSeconds: number; mediaSeconds: number }): void => {
  if (!(mediaSeconds > 0) || !(wallSeconds >= 0)) return;
  const sample = wallSeconds / mediaSeconds;
  const known = costs().get(rung);
  costs().set(rung, {
    rung,
    samples: (known?.samples ?? 0) + 1,
    secondsPerMediaSecond: known ? known.secondsPerMediaSecond + SMOOTHING * (sample - known.secondsPerMediaSecond) : sample,
  });
};

export const rungCosts = (): RungCost[] => [...costs().values()].map((cost) => ({ ...cost }));

/**
 * Seconds of encoding per second of media for a rung: its own measurement, or, before it has
 * one, the measured rung nearest in size scaled by the pixel count (x264's work grows with the
 * pixels; same aspect ratio assumed). Null when nothing comparable has been measured yet.
 */
export const encodeCostPerMediaSecond = (rung: string): { secondsPerMediaSecond: number; measured: boolean } | null => {
  const own = costs().get(rung);
  if (own) return { secondsPerMediaSecond: own.secondsPerMediaSecond, measured: true };
  const side = shortSideOfRungName(rung);
  if (side === null) return null;
  let nearest: { cost: RungCost; side: number } | null = null;
  for (const cost of costs().values()) {
    const other = shortSideOfRungName(cost.rung);
    if (other === null) continue;
    if (!nearest || Math.abs(Math.log(other / side)) < Math.abs(Math.log(nearest.side / side))) nearest = { cost, side: other };
  }
  if (!nearest) return null;
  return { secondsPerMediaSecond: nearest.cost.secondsPerMediaSecond * (side / nearest.side) ** 2, measured: false };
};

/** Forgets every measurement (tests). */
export const resetEncodeCosts = (): void => costs().clear();
