import type { Rung } from '../../media/hls/ladder';
import { encodeCostPerMediaSecond } from './encode-costs';
import { canMeetDeadline } from './encoding-load';
import type { PlaybackPlan } from './playback-plan';
import { encodeDemand, encoderScheduler } from './runtime';
import { isSegmentBeingEncoded, storedVideoSegment } from './video-segments';

// Degrading gracefully when the encoders are over capacity: rather than let every viewer miss,
// steer viewers to rungs that can be made in time. A rung is affordable for a segment when the
// queue ahead of that segment's deadline plus the rung's measured cost still finishes by the
// deadline, or when the segment is already stored (serving it costs no encoder). The cheapest
// rung is always kept: there is nothing to steer its viewers to.

const pixels = (rung: Rung) => rung.width * rung.height;

/** The cheapest rung a viewer of this plan can be given: what the asset needs at least (see encode-demand.ts). */
export const floorRungOf = (plan: PlaybackPlan): string | undefined =>
  plan.rungs.filter((rung) => !rung.isBackground).reduce<Rung | undefined>((best, rung) => (!best || pixels(rung) < pixels(best) ? rung : best), undefined)?.name;

/**
 * Viewers' work is waiting for an encoder: the machine is over capacity. Only then is anyone
 * steered; a running prefetch or fill alone is not a reason (prefetches of a rung a viewer leaves
 * are dropped, fill yields at once).
 */
export const overCapacity = (): boolean => encoderScheduler().queuedDeadlineWork() > 0;

// Nothing comparable measured yet (null): there is no evidence to refuse on.
const finishesInTime = (rung: Rung, mediaSeconds: number, deadline: number): boolean => canMeetDeadline(rung.name, mediaSeconds, deadline) ?? true;


const isServable = (assetId: string, rung: Rung, index: number, mediaSeconds: number, deadline: number): boolean =>
  storedVideoSegment(assetId, rung, index) !== null || isSegmentBeingEncoded(assetId, rung, index) || finishesInTime(rung, mediaSeconds, deadline);

/**
 * The rungs a new player may be offered now: those whose first segment is stored, or can be
 * encoded in real time behind the current queue (due within its own duration). `degraded` when
 * any was left out, so the answer must not be cached for long.
 */
export const affordableRungs = (assetId: string, plan: PlaybackPlan, rungs: Rung[], now = Date.now()): { rungs: Rung[]; degraded: boolean } => {
  const first = plan.video?.segments[0];
  if (!first || rungs.length <= 1 || !overCapacity()) return { rungs, degraded: false };
  const cheapest = rungs.reduce((best, rung) => (pixels(rung) < pixels(best) ? rung : best));
  const deadline = now + first.duration * 1000;
  const kept = rungs.filter((rung) => rung === cheapest || isServable(assetId, rung, 0, first.duration, deadline));
  return { rungs: kept, degraded: kept.length < rungs.length };
};

/**
 * Whether a viewer asking for a cold segment of `rung` is better told to take a cheaper one: this
 * rung cannot make it by the viewer's deadline, and a cheaper rung of the ladder can (or has it
 * stored). Never for the cheapest rung, nor when no cheaper rung would do better.
 */
export const shouldSteerToCheaperRung = ({
  assetId,
  plan,
  rung,
  index,
  deadline,
}: {
  assetId: string;
  plan: PlaybackPlan;
  rung: Rung;
  index: number;
  deadline: number;
}): boolean => {
  const segment = plan.video?.segments[index];
  // With capacity to spare this is the player's own adaptation to make: a refusal keeps hls.js off
  // the rung for the rest of the session (its penalty box does not expire by default).
  if (!segment || !overCapacity()) return false;
  // Already being encoded (a prefetch, another viewer): joining it is the quickest way.
  if (isSegmentBeingEncoded(assetId, rung, index)) return false;
  const cheaper = plan.rungs.filter((candidate) => !candidate.isBackground && pixels(candidate) < pixels(rung));
  if (cheaper.length === 0 || finishesInTime(rung, segment.duration, deadline)) return false;
  return cheaper.some((candidate) => isServable(assetId, candidate, index, segment.duration, deadline));
};

/**
 * Whether a playing viewer that just moved up to `rung` (from `from`) is better told to stay where
 * it was. A player climbs when its last segments came fast, which on a just-published asset means
 * they came from prefetches; the climb's first segment is cold. Only a playing viewer climbs (a
 * client fetching a segment it has on another rung, as a rendition check does, is left alone). It
 * is refused when other viewers' work competes and that segment would not be
 * encoded before the viewer's buffer runs out (the climb itself would stall it: at the start of
 * playback, with 2 s buffered, it nearly always would), or when the encoders have not promised
 * that rung for this asset and it does not fit beside what they have promised (a climb to a dearer
 * rung nobody else watches takes the encoders past what they keep up with, and every admitted
 * viewer pays in stalls).
 */
export const climbDoesNotFit = ({
  streamId,
  client,
  assetId,
  plan,
  rung,
  from,
  index,
  deadline,
  now,
  advanced,
}: {
  streamId: string;
  client?: string;
  assetId: string;
  plan: PlaybackPlan;
  rung: Rung;
  from: string;
  index: number;
  /** When the viewer's buffer runs out (epoch ms). */
  deadline: number;
  now: number;
  /**
   * The viewer moves on to the next segment (a player climbing), or is one of several players
   * behind one address, playing in step, asking for where they are on a higher rung; not a client
   * fetching one segment of every rung, as a rendition check does.
   */
  advanced: boolean;
}): boolean => {
  const previous = plan.rungs.find((candidate) => candidate.name === from);
  if (!advanced || !previous || pixels(previous) >= pixels(rung)) return false;
  // Before anything is measured there is no evidence to refuse on.
  if (encodeCostPerMediaSecond(rung.name) === null) return false;
  if (isSegmentBeingEncoded(assetId, rung, index)) return false;
  const mediaSeconds = plan.video?.segments[index]?.duration ?? 0;
  // A lone asset's viewer on quiet encoders is left to its player's own adaptation: hls.js never
  // returns to a rung it was refused on.
  const contended = overCapacity() || encodeDemand().promisedBesides(assetId, now);
  if (contended && !finishesInTime(rung, mediaSeconds, deadline)) return true;
  return !encodeDemand().fitsMove(streamId, assetId, rung.name, now, client);
};

/**
 * Whether a playing viewer asking for a cold segment of `rung` should move one rung down to give
 * back what the encoders promised above its asset's floor: new assets' viewers were admitted on
 * their floors, and together with the rungs watched now the encoders cannot keep up. Never for a
 * segment already being encoded (joining it costs nothing more).
 */
export const exceedsFairShare = ({ assetId, plan, rung, index, now }: { assetId: string; plan: PlaybackPlan; rung: Rung; index: number; now: number }): boolean =>
  !isSegmentBeingEncoded(assetId, rung, index) && encodeDemand().exceedsFairShare(rung.name, now, floorRungOf(plan));
