import { describe, expect, test } from 'vitest';
import { ADMISSION_UTILISATION, DEMAND_HOLD_MS, EncodeDemand } from './encode-demand';

// Two encoder slots (1.5 CPU-s per second promised); 270p costs 0.1 CPU-s per second of media, 540p 0.45, 1080p unknown.
const COSTS: Record<string, number> = { '270p': 0.1, '540p': 0.45 };
const make = () => new EncodeDemand({ capacity: () => 2, costOf: (rung) => COSTS[rung] ?? null });
const T0 = 1_000_000;

describe('EncodeDemand', () => {
  test('admits viewers while the encoders can keep up, then makes new ones wait', () => {
    const demand = make();
    const budget = 2 * ADMISSION_UTILISATION; // 1.5
    const admitted = Array.from({ length: 6 }, (_, index) => demand.admit(`s${index}`, `asset${index}`, '540p', T0));
    // 3 × 0.45 = 1.35 fits in 1.5; a fourth would need 1.8.
    expect(admitted).toEqual([true, true, true, false, false, false]);
    expect(demand.demand(T0)).toBeCloseTo(1.35);
    expect(demand.demand(T0)).toBeLessThanOrEqual(budget);
    // A cheaper rung still fits beside them.
    expect(demand.admit('s6', 'asset6', '270p', T0)).toBe(true);
    expect(demand.fits('asset7', '270p', T0)).toBe(false);
  });

  test('viewers of one asset and rung share its cost', () => {
    const demand = make();
    for (let index = 0; index < 10; index++) expect(demand.admit(`s${index}`, 'asset', '540p', T0)).toBe(true);
    expect(demand.demand(T0)).toBeCloseTo(0.45);
  });

  test('an admitted viewer stays admitted when it changes rungs; its new rung is counted instead of the old', () => {
    const demand = make();
    expect(demand.admit('a', 'asset1', '540p', T0)).toBe(true);
    expect(demand.admit('b', 'asset2', '540p', T0)).toBe(true);
    expect(demand.admit('c', 'asset3', '540p', T0)).toBe(true);
    expect(demand.admit('d', 'asset4', '540p', T0), '1.8 would pass the 1.5 promised').toBe(false);
    expect(demand.admit('a', 'asset1', '270p', T0 + 1)).toBe(true);
    expect(demand.demand(T0 + 1)).toBeCloseTo(1.0);
    expect(demand.admit('d', 'asset4', '540p', T0 + 1), 'a moving down made room').toBe(true);
  });

  test('a rung nobody encodes for stops counting after the hold; a waiting viewer is then admitted', () => {
    const demand = make();
    for (let index = 0; index < 3; index++) demand.admit(`s${index}`, `asset${index}`, '540p', T0);
    expect(demand.admit('late', 'asset9', '540p', T0 + 1_000)).toBe(false);
    // s0 keeps asking for cold segments; the others play from the cache.
    demand.admit('s0', 'asset0', '540p', T0 + DEMAND_HOLD_MS - 1);
    expect(demand.admit('late', 'asset9', '540p', T0 + DEMAND_HOLD_MS)).toBe(true);
    expect(demand.demand(T0 + DEMAND_HOLD_MS)).toBeCloseTo(0.9);
  });

  test('reservations from multivariant requests count before the first segment request', () => {
    const demand = make();
    demand.reserve('asset1', '540p', T0);
    demand.reserve('asset2', '540p', T0);
    demand.reserve('asset3', '540p', T0);
    expect(demand.fits('asset4', '540p', T0)).toBe(false);
    expect(demand.fits('asset1', '540p', T0)).toBe(true);
    expect(demand.fits('asset4', '540p', T0 + DEMAND_HOLD_MS)).toBe(true);
  });

  test('while nothing is measured, only the first viewer is promised real time', () => {
    const demand = new EncodeDemand({ capacity: () => 2, costOf: () => null });
    expect(demand.admit('a', 'asset1', '540p', T0)).toBe(true);
    expect(demand.fits('asset1', '540p', T0), 'its own rung is shared').toBe(true);
    expect(demand.admit('b', 'asset2', '270p', T0)).toBe(false);
    expect(demand.admit('b', 'asset2', '270p', T0 + DEMAND_HOLD_MS)).toBe(true);
  });

  test('with nothing promised, a viewer is admitted even to a rung dearer than the encoders', () => {
    const demand = new EncodeDemand({ capacity: () => 2, costOf: (rung) => ({ '2160p': 3, '540p': 0.5 })[rung] ?? null });
    expect(demand.fits('asset1', '2160p', T0)).toBe(false);
    expect(demand.admit('a', 'asset1', '2160p', T0)).toBe(true);
    // From then on it counts: the next viewer of another asset waits.
    expect(demand.admit('b', 'asset2', '540p', T0)).toBe(false);
    expect(demand.admit('b', 'asset2', '540p', T0 + DEMAND_HOLD_MS)).toBe(true);
  });

  test('a stream that went away is forgotten', () => {
    const demand = make();
    demand.admit('s', 'asset', '540p', T0);
    expect(demand.isAdmitted('s')).toBe(true);
    demand.forget('s');
    expect(demand.isAdmitted('s')).toBe(false);
    expect(demand.admittedCount()).toBe(0);
  });

  test('a viewer moving rungs stops holding the rung it left, unless another viewer holds it', () => {
    // One slot: 0.75 CPU-s per second can be promised; 270p costs 0.1, 540p 0.45.
    const demand = new EncodeDemand({ capacity: () => 1, costOf: (rung) => COSTS[rung] ?? null });
    for (const [viewer, asset] of [['a', 'asset1'], ['b', 'asset2'], ['c', 'asset3'], ['e', 'asset5']] as const) demand.admit(viewer, asset, '270p', T0);
    expect(demand.fits('asset1', '540p', T0), 'beside its 270p, 540p does not fit').toBe(false);
    expect(demand.fitsMove('a', 'asset1', '540p', T0), 'instead of it, it does').toBe(true);
    demand.admit('a', 'asset1', '540p', T0);
    expect(demand.demand(T0)).toBeCloseTo(0.45 + 0.1 * 3, 10);
    // A second viewer of asset2 on its 270p: b moving up leaves a rung still held.
    demand.admit('d', 'asset2', '270p', T0);
    expect(demand.fitsMove('b', 'asset2', '540p', T0)).toBe(false);
  });

  test("a client's own requests take over from the rung it was told to start on", () => {
    const demand = new EncodeDemand({ capacity: () => 1, costOf: (rung) => COSTS[rung] ?? null });
    demand.reserve('asset1', '540p', T0, 'client1');
    expect(demand.demand(T0)).toBeCloseTo(0.45);
    // Its player chose another start rung: it is charged for that one alone.
    expect(demand.admit('a', 'asset1', '270p', T0, { client: 'client1' })).toBe(true);
    expect(demand.demand(T0)).toBeCloseTo(0.1);
    // Another client's reservation of the same asset is not its to release.
    demand.reserve('asset1', '540p', T0, 'client2');
    demand.admit('a', 'asset1', '270p', T0 + 1, { client: 'client1' });
    expect(demand.demand(T0 + 1)).toBeCloseTo(0.55);
  });

  test('a viewer climbing is not charged for the start rung reserved for its own client', () => {
    // One slot (0.75 promised); 720p at 0.5 CPU-s per second.
    const demand = new EncodeDemand({ capacity: () => 1, costOf: (rung) => ({ ...COSTS, '720p': 0.5 })[rung] ?? null });
    demand.reserve('asset1', '540p', T0, 'client1');
    demand.admit('b', 'asset2', '270p', T0, { client: 'client2' });
    // Its segments so far came from the cache (never admitted): only the reservation stands for it.
    expect(demand.fitsMove('a', 'asset1', '720p', T0, 'client1')).toBe(true);
    expect(demand.fitsMove('a', 'asset1', '720p', T0), 'a viewer that cannot be told apart is charged for it').toBe(false);
    expect(demand.fitsMove('c', 'asset1', '720p', T0, 'client3'), 'as is another client').toBe(false);
  });

  test('the only viewer promised anything may move to any rung', () => {
    // One slot (0.75 promised); 1080p unknown here, so a dear rung: 2160p at 3 CPU-s per second.
    const demand = new EncodeDemand({ capacity: () => 1, costOf: (rung) => ({ '270p': 0.1, '2160p': 3 })[rung] ?? null });
    demand.admit('a', 'asset1', '270p', T0);
    expect(demand.fitsMove('a', 'asset1', '2160p', T0)).toBe(true);
    demand.admit('b', 'asset2', '270p', T0);
    expect(demand.fitsMove('a', 'asset1', '2160p', T0), 'with another viewer promised, it does not').toBe(false);
  });

  test('a new asset is admitted on its floor while every watched asset fits at its own floor, whatever rungs they play', () => {
    const demand = make();
    const floor = { floorRung: '270p' };
    // Three assets climbed to 540p while the machine was quiet, a fourth plays 270p: 1.45 of the 1.5 promised.
    for (const asset of ['asset1', 'asset2', 'asset3']) expect(demand.admit(`on-${asset}`, asset, '540p', T0, floor)).toBe(true);
    expect(demand.admit('on-asset4', 'asset4', '270p', T0, floor)).toBe(true);
    expect(demand.fits('asset5', '270p', T0), 'beside what they play, not even 270p fits').toBe(false);
    expect(demand.floorDemand(T0)).toBeCloseTo(0.4);
    expect(demand.exceedsFairShare('540p', T0, '270p')).toBe(false);
    // At their floors they would need 0.4: a new asset's viewer is admitted on its floor.
    expect(demand.admitsAsset('asset5', T0, '270p')).toBe(true);
    expect(demand.admit('new', 'asset5', '270p', T0, floor)).toBe(true);
    // Now more is promised than the encoders keep up with: those above their floor are told to move down.
    expect(demand.demand(T0)).toBeCloseTo(1.55);
    expect(demand.exceedsFairShare('540p', T0, '270p')).toBe(true);
    expect(demand.exceedsFairShare('270p', T0, '270p'), 'a floor is never given back').toBe(false);
    // One moving down is enough.
    demand.admit('on-asset1', 'asset1', '270p', T0 + 1, floor);
    expect(demand.exceedsFairShare('540p', T0 + 1, '270p')).toBe(false);
  });

  test('past the floors of the watched assets a new asset waits, and a viewer of a watched one does not', () => {
    const demand = make();
    const floor = { floorRung: '270p' };
    // 15 assets at 0.1 each fill the 1.5 promised.
    for (let index = 0; index < 15; index++) expect(demand.admit(`s${index}`, `asset${index}`, '270p', T0, floor)).toBe(true);
    expect(demand.admit('late', 'asset99', '270p', T0, floor)).toBe(false);
    expect(demand.admit('friend', 'asset3', '270p', T0, floor), 'shares a rung already kept going').toBe(true);
  });

  test('a viewer already playing (served from the cache so far) is admitted whatever is promised', () => {
    const demand = make();
    for (let index = 0; index < 15; index++) demand.admit(`s${index}`, `asset${index}`, '270p', T0, { floorRung: '270p' });
    expect(demand.admit('cached-start', 'asset99', '270p', T0, { floorRung: '270p' })).toBe(false);
    expect(demand.admit('cached-start', 'asset99', '270p', T0, { floorRung: '270p', playing: true })).toBe(true);
    expect(demand.exceedsFairShare('540p', T0, '270p'), 'those above their floors make room').toBe(true);
  });

  test('over the budget through climbs alone, nobody is steered down: only when someone was refused or let in on a floor', () => {
    const demand = make();
    const floor = { floorRung: '270p' };
    for (const asset of ['asset1', 'asset2', 'asset3', 'asset4']) demand.admit(`on-${asset}`, asset, '270p', T0, floor);
    // Admitted viewers climbing (whether a climb fits is the caller's check) take the demand over the budget.
    for (const asset of ['asset1', 'asset2', 'asset3', 'asset4']) demand.admit(`on-${asset}`, asset, '540p', T0, floor);
    expect(demand.demand(T0)).toBeGreaterThan(1.5);
    expect(demand.exceedsFairShare('540p', T0, '270p')).toBe(false);
    expect(demand.admit('new', 'asset5', '270p', T0 + 1, floor), 'let in on its floor').toBe(true);
    expect(demand.exceedsFairShare('540p', T0 + 1, '270p')).toBe(true);
    expect(demand.exceedsFairShare('540p', T0 + 1 + DEMAND_HOLD_MS, '270p'), 'for a hold').toBe(false);
  });
});
