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
//
// Admission is by fair share: a new asset's viewers are admitted while every asset being watched
// could be kept going at its cheapest rung (its floor), not only while the rungs watched now fit.
// Otherwise the first viewers, who climbed while the machine was quiet, kept everyone after them
// waiting (capacity bench, 6 fresh assets on 2 cores: two started after 16 and 20 s while the
// others played 540p and 720p with 5 s of slack). What is promised above the floors is given back
// when that keeps someone at or below a floor: a playing viewer above its floor is steered one rung
// down (see affordable-rungs.ts, exceedsFairShare) until the rungs watched fit again.

/**
 * Share of the encoder slots (one core each) that viewers may be promised, in CPU seconds per
 * second: the rest goes to what is not counted in a rung's cost — the audio tracks, init segments,
 * the server answering every request — and absorbs cost variation. Measured on 2 cores with four
 * fresh assets at 270p (capacity bench): both slots busy delivered 1.5 CPU-s per second of ffmpeg
 * work; promising 1.7 (0.85) left every admitted viewer behind.
 */
export const ADMISSION_UTILISATION = 0.75;
// Longer than the longest segment (4 s) plus the slack of a player that keeps ~10 s buffered.
export const DEMAND_HOLD_MS = 12_000;

// `holders`: the admitted streams on it now; `reservedFor`: the clients told to start on it whose
// streams hold nothing of the asset yet ('' for one that cannot be told apart). A pair its last
// holder left (a rung switch) and nobody reserved stops counting then.
type Pair = { assetId: string; rung: string; until: number; holders: Set<string>; reservedFor: Set<string> };

/**
 * Who asks, the cheapest rung of the asset's ladder (what it needs at least), and whether its
 * player is already playing (it got earlier segments, from the cache or a prefetch): refusing that
 * one would make it stall, so it is always admitted, and those above their floors make room.
 */
export type DemandContext = { client?: string; floorRung?: string; playing?: boolean };

export class EncodeDemand {
  private readonly pairs = new Map<string, Pair>();
  // The cheapest rung of each asset's ladder, as its viewers' requests told it.
  private readonly floors = new Map<string, string>();
  // Until when an asset is squeezed by the rungs above the floors: a new viewer was refused, or let
  // in on its floor (or as a playing viewer) where its rung did not fit.
  private squeezedUntil = Number.NEGATIVE_INFINITY;
  private readonly admitted = new Map<string, number>();
  // Which pair each admitted stream holds.
  private readonly heldBy = new Map<string, string>();
  // Which pair a client was told to start on, per asset (client + asset), until when.
  private readonly reservations = new Map<string, { key: string; until: number }>();

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
    for (const [reservation, { until }] of this.reservations) if (until <= now) this.reservations.delete(reservation);
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
    return this.demand(now) + cost <= this.budget();
  }

  /**
   * Whether a new viewer of `assetId` can be promised real time: the asset is already watched (its
   * floor is counted), or its floor fits beside every watched asset's floor. What a viewer gets
   * above its floor depends on fits.
   */
  admitsAsset(assetId: string, now: number, floorRung: string | undefined): boolean {
    if (this.watchedAssets(now).has(assetId)) return true;
    const cost = this.options.costOf(floorRung ?? '');
    if (cost === null) return !this.promisedAny(now);
    return this.floorDemand(now) + cost <= this.budget() + 1e-9;
  }

  /** Whether the encoders keep up with viewers of other assets than this one. */
  promisedBesides(assetId: string, now: number): boolean {
    for (const watched of this.watchedAssets(now).keys()) if (watched !== assetId) return true;
    return false;
  }

  /** What the watched assets need at least: each one's floor, in CPU seconds per second. */
  floorDemand(now: number): number {
    let total = 0;
    for (const [assetId, rungs] of this.watchedAssets(now)) {
      const floor = this.floors.get(assetId);
      const floorCost = floor === undefined ? null : this.options.costOf(floor);
      total += floorCost ?? Math.min(...[...rungs].map((rung) => this.options.costOf(rung) ?? 0));
    }
    return total;
  }

  /**
   * Whether a viewer on `rung` should move down: more is promised than the encoders can keep up
   * with because viewers of other assets were let in on their floors (or wait), and this rung is
   * above its asset's floor. Over the budget through climbs alone nobody is steered here (a climb
   * that does not fit is refused when it is asked for).
   */
  exceedsFairShare(rung: string, now: number, floorRung: string | undefined): boolean {
    if (floorRung === undefined || rung === floorRung || now >= this.squeezedUntil) return false;
    return this.demand(now) > this.budget() + 1e-9;
  }

  /**
   * Whether the stream moving to `rung` of `assetId` fits: as fits, without the pair it leaves
   * when it is the only one holding it, nor the one its own client was told to start on when
   * nobody else wants that (one viewer is not charged for two rungs), and always when it is the
   * only viewer promised anything.
   */
  fitsMove(streamId: string, assetId: string, rung: string, now: number, client?: string): boolean {
    const pair = this.pairs.get(pairKey(assetId, rung));
    if (pair && pair.until > now) return true;
    const cost = this.options.costOf(rung);
    if (cost === null) return !this.promisedAny(now);
    const others = this.demand(now) - this.ownDemand(streamId, assetId, now, client);
    // Nobody else promised anything: as for admission, the encoders owe nobody else.
    if (others <= 1e-9) return true;
    return others + cost <= this.budget();
  }

  /**
   * A player (of `client`: address and User-Agent) was told to start on this rung: count it until
   * its own requests take over, whichever rung they ask for.
   */
  reserve(assetId: string, rung: string, now: number, client = ''): void {
    if (client !== '') this.releaseReservation(client, assetId);
    const pair = this.hold(assetId, rung, now);
    pair.reservedFor.add(client);
    if (client !== '') this.reservations.set(reservationKey(client, assetId), { key: pairKey(assetId, rung), until: pair.until });
  }

  /**
   * A viewer's stream asks for a segment of `rung` that must be encoded. Admitted streams stay
   * admitted (their next rung is counted); a new one is admitted when its rung fits (see fits) or
   * its asset's floor does (see admitsAsset), which it always does when nothing is promised at
   * all: the encoders owe nobody else, so making that viewer wait (and encode nothing ahead of it)
   * would only leave them idle — a rung measured dearer than the whole machine, on a busy box,
   * would otherwise never get a viewer.
   */
  admit(streamId: string, assetId: string, rung: string, now: number, { client, floorRung, playing = false }: DemandContext = {}): boolean {
    const fits = this.admitted.has(streamId) || !this.promisedAny(now) || this.fits(assetId, rung, now);
    if (!fits) {
      this.squeezedUntil = now + (this.options.holdMs ?? DEMAND_HOLD_MS);
      if (!playing && !this.admitsAsset(assetId, now, floorRung)) return false;
    }
    this.admitted.set(streamId, now);
    this.hold(assetId, rung, now, streamId);
    if (floorRung) this.floors.set(assetId, floorRung);
    if (client) this.releaseReservation(client, assetId);
    return true;
  }

  private budget(): number {
    return this.options.capacity() * ADMISSION_UTILISATION;
  }

  // The assets with a counted pair, with the rungs counted for each.
  private watchedAssets(now: number): Map<string, Set<string>> {
    this.demand(now);
    const assets = new Map<string, Set<string>>();
    for (const { assetId, rung } of this.pairs.values()) {
      const rungs = assets.get(assetId) ?? new Set<string>();
      rungs.add(rung);
      assets.set(assetId, rungs);
    }
    for (const assetId of this.floors.keys()) if (!assets.has(assetId)) this.floors.delete(assetId);
    return assets;
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
    this.leave(streamId);
  }

  /** Admitted streams, for operators. */
  admittedCount(): number {
    return this.admitted.size;
  }

  // What this stream's own viewer adds to the demand: the pair it holds alone, and the pair its
  // client was told to start on while nobody else holds or reserved that.
  private ownDemand(streamId: string, assetId: string, now: number, client: string | undefined): number {
    const held = this.pairs.get(this.heldBy.get(streamId) ?? '');
    const reserved = client ? this.pairs.get(this.reservations.get(reservationKey(client, assetId))?.key ?? '') : undefined;
    const isOwn = (pair: Pair | undefined): pair is Pair =>
      pair !== undefined &&
      pair.until > now &&
      [...pair.holders].every((holder) => holder === streamId) &&
      [...pair.reservedFor].every((reservedFor) => client !== undefined && reservedFor === client);
    const own = new Set([held, reserved].filter(isOwn));
    return [...own].reduce((total, pair) => total + (this.options.costOf(pair.rung) ?? 0), 0);
  }

  private hold(assetId: string, rung: string, now: number, streamId?: string): Pair {
    const key = pairKey(assetId, rung);
    const until = now + (this.options.holdMs ?? DEMAND_HOLD_MS);
    let pair = this.pairs.get(key);
    if (!pair || pair.until <= now) {
      pair = { assetId, rung, until, holders: new Set(), reservedFor: new Set() };
      this.pairs.set(key, pair);
    }
    pair.until = Math.max(pair.until, until);
    if (streamId === undefined) return pair;
    if (this.heldBy.get(streamId) !== key) this.leave(streamId);
    pair.holders.add(streamId);
    this.heldBy.set(streamId, key);
    return pair;
  }

  // The client's own requests took over from what it was told to start on.
  private releaseReservation(client: string, assetId: string): void {
    const reservation = reservationKey(client, assetId);
    const key = this.reservations.get(reservation)?.key;
    this.reservations.delete(reservation);
    const pair = key === undefined ? undefined : this.pairs.get(key);
    if (!key || !pair) return;
    pair.reservedFor.delete(client);
    this.dropIfUnwanted(key, pair);
  }

  // The stream no longer holds its pair.
  private leave(streamId: string): void {
    const key = this.heldBy.get(streamId);
    this.heldBy.delete(streamId);
    const pair = key === undefined ? undefined : this.pairs.get(key);
    if (!key || !pair) return;
    pair.holders.delete(streamId);
    this.dropIfUnwanted(key, pair);
  }

  // A pair nobody holds or reserved stops counting.
  private dropIfUnwanted(key: string, pair: Pair): void {
    if (pair.holders.size === 0 && pair.reservedFor.size === 0) this.pairs.delete(key);
  }
}

const pairKey = (assetId: string, rung: string) => `${assetId}/${rung}`;
const reservationKey = (client: string, assetId: string) => `${client}\n${assetId}`;
