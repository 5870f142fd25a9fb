import { estimatedStartMs, encoderScheduler } from './runtime';
import { encodeCostPerMediaSecond, expectedEncodeMs } from './encode-costs';
import { describeLoad, type EncodingLoad } from './load-snapshot';

export type { EncodeKind, EncodingLoad, RungEncodeCost } from './load-snapshot';

/** A snapshot of the just-in-time encoder: slots, running and queued work, deadline misses, measured cost per rung. */
export const encodingLoad = (): EncodingLoad => describeLoad(encoderScheduler());

/**
 * Milliseconds from now until an encode of `mediaSeconds` of rung `rungName` would be finished if
 * a viewer asked for it now, with its buffer running out at `deadline` (epoch ms; default now:
 * a starting or stalled player): the time until the scheduler would start it (running work's
 * remaining time, deadline work queued ahead of it) plus its measured cost. Null while no rung
 * of comparable size has been measured on this machine.
 */
export const estimatedEncodeFinishMs = (rungName: string, mediaSeconds: number, deadline = Date.now()): number | null => {
  if (!encodeCostPerMediaSecond(rungName)) return null;
  return estimatedStartMs(deadline) + expectedEncodeMs(rungName, mediaSeconds);
};

/**
 * Whether segment work of `mediaSeconds` of rung `rungName`, asked for now, would be finished by
 * `deadline` (epoch ms). Null when the rung's cost is not known yet (nothing comparable measured).
 */
export const canMeetDeadline = (rungName: string, mediaSeconds: number, deadline: number): boolean | null => {
  const finishMs = estimatedEncodeFinishMs(rungName, mediaSeconds, deadline);
  return finishMs === null ? null : Date.now() + finishMs <= deadline;
};
