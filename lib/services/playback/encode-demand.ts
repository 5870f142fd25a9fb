// Admission of viewers to the just-in-time encoders. Earliest-deadline-first is the best order
// while the work fits the machine, and the worst when it does not: every viewer then misses, one
// after the other. So a viewer's encodes carry its deadline only once it is admitted, and viewers
// are admitted while the encoders can sustain them; the others wait for a free encoder (their start
// takes longer), and nobody who is playing stalls because someone new arrived.
//
// What the encoders must sustain is counted per (asset, rung) whose segments are being encoded for
// admitted viewers: in real time, that rung costs its measured seconds of encoding per second of
// media, once however many viewers share it. A pair stays counted a little longer than the gap
// between a buffered player's requests; a player served from the cache adds nothing.

/** Share of the encoder slots that viewers may be promised; the rest absorbs cost variation. */
export const ADMISSION_UTILISATION = 0.85;
// Longer than the longest segment (4 s) plus the slack of a player that keeps ~10 s buffered.
export const DEMAND_HOLD_MS = 12_000;

type Pair = { rung: string; until: number };

export class EncodeDemand {
  private readonly pairs = new Map<string, Pair>();
  private readonly admitted = new Map<string, number>();

  constructor(
    private readonly options: {
      /** Encoder slots. */
      capacity: () => number;
      /** Seconds of encoding per second of media for a rung; null while nothing comparable was measured. */
      costOf: (rung: string) => number | null;
      holdMs?: number;
    },
  ) {}

  /** Seconds of encoding per second of media that admitted viewers (and starting ones) need now. */
  demand(now: number): number {
    let total = 0;
    for (const [key, pair] of this.pairs) {
      if (pair.until <= now) this.pairs.delete(key);
      else total += this.options.costOf(pair.rung) ?? 0;
    }
    return total;
  }

  /**
   * Whether encoding `rung` of `assetId` in real time fits beside what is promised: it already is
   * being encoded for someone (shared), or its cost fits in the slots' share. While nothing has been
   * measured (a fresh node's first seconds) a cost is unknown, and it fits only when nothing is
   * promised: the viewers of a burst would otherwise all be admitted before the first encode told
   * what one costs.
   */
  fits(assetId: string, rung: string, now: number): boolean {
    const pair = this.pairs.get(pairKey(assetId, rung));
    if (pair && pair.until > now) return true;
    const cost = this.options.costOf(rung);
    if (cost === null) return !this.promisedAny(now);
    return this.demand(now) + cost <= this.options.capacity() * ADMISSION_UTILISATION;
  }

  /** A player was told to start on this rung: count it until its own requests take over. */
  reserve(assetId: string, rung: string, now: number): void {
    this.hold(assetId, rung, now);
  }

  /**
   * A viewer's stream asks for a segment of `rung` that must be encoded. Admitted streams stay
   * admitted (their next rung is counted); a new one is admitted when its rung fits (see fits), which
   * it always does when nothing is promised at all: the encoders owe nobody else, so making that
   * viewer wait (and encode nothing ahead of it) would only leave them idle — a rung measured
   * dearer than the whole machine, on a busy box, would otherwise never get a viewer.
   */
  admit(streamId: string, assetId: string, rung: string, now: number): boolean {
    if (!this.admitted.has(streamId) && this.promisedAny(now) && !this.fits(assetId, rung, now)) return false;
    this.admitted.set(streamId, now);
    this.hold(assetId, rung, now);
    return true;
  }

  /** Whether any (asset, rung) is counted now, whatever its cost. */
  private promisedAny(now: number): boolean {
    this.demand(now);
    return this.pairs.size > 0;
  }

  isAdmitted(streamId: string): boolean {
    return this.admitted.has(streamId);
  }

  /** The stream went away. */
  forget(streamId: string): void {
    this.admitted.delete(streamId);
  }

  /** Admitted streams, for operators. */
  admittedCount(): number {
    return this.admitted.size;
  }

  private hold(assetId: string, rung: string, now: number): void {
    const key = pairKey(assetId, rung);
    const until = now + (this.options.holdMs ?? DEMAND_HOLD_MS);
    const pair = this.pairs.get(key);
    if (!pair || pair.until < until) this.pairs.set(key, { rung, until });
  }
}

const pairKey = (assetId: string, rung: string) => `${assetId}/${rung}`;
