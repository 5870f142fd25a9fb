import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Rung } from '../../media/hls/ladder';
import { affordableRungs, climbDoesNotFit, exceedsFairShare, floorRungOf, shouldSteerToCheaperRung } from './affordable-rungs';
import { recordEncodeCost, resetEncodeCosts } from './encode-costs';
import type { PlaybackPlan } from './playback-plan';
import { encodeDemand, encoderScheduler } from './runtime';

const rung = (height: number): Rung => ({
  name: `${height}p`,
  width: Math.round((height * 16) / 9),
  height,
  videoBitrate: height * 5_000,
  maxBitrate: height * 7_500,
  level: '4.0',
  codecs: 'avc1.640028',
  frameRate: 30,
  isBackground: false,
});

const SEGMENT_SECONDS = 4;
const plan: PlaybackPlan = {
  rungs: [rung(270), rung(540), rung(1080)],
  video: {
    frameRate: 30,
    duration: 40,
    segments: Array.from({ length: 10 }, (_, index) => ({ start: index * SEGMENT_SECONDS, duration: SEGMENT_SECONDS })),
  } as PlaybackPlan['video'],
  audio: null,
};
const [low, mid, high] = plan.rungs as [Rung, Rung, Rung];
const ASSET = 'asset-affordable-rungs-test';

// Fills every encoder with viewer work that takes `busyMs` more, plus `queued` more of the same
// waiting, due now: what a burst of cold requests looks like to the scheduler.
const occupyEncoders = ({ busyMs, queued }: { busyMs: number; queued: number }) => {
  const scheduler = encoderScheduler();
  const releases: (() => void)[] = [];
  const works = Array.from({ length: scheduler.limit() + queued }, (_, index) =>
    scheduler.submit({
      kind: 'onDemand',
      workClass: 'deadline',
      costMs: busyMs,
      label: `occupier ${index}`,
      run: () => new Promise<void>((resolve) => releases.push(resolve)),
    }),
  );
  return async () => {
    for (const work of works) work.cancel(new Error('test over'));
    releases.forEach((release) => release());
    await Promise.allSettled(works.map((work) => work.done));
  };
};

describe('degrading under load', () => {
  let release: (() => Promise<void>) | null = null;
  beforeEach(() => {
    resetEncodeCosts();
    // Measured costs (seconds of encoding per second of media): 270p and 540p keep up, 1080p not.
    recordEncodeCost({ rung: '270p', cpuSeconds: 0.4, mediaSeconds: SEGMENT_SECONDS });
    recordEncodeCost({ rung: '540p', cpuSeconds: 1.6, mediaSeconds: SEGMENT_SECONDS });
    recordEncodeCost({ rung: '1080p', cpuSeconds: 4.8, mediaSeconds: SEGMENT_SECONDS });
  });
  afterEach(async () => {
    await release?.();
    release = null;
  });

  it('offers the whole ladder while no viewer work waits for an encoder, busy or not', () => {
    expect(affordableRungs(ASSET, plan, plan.rungs)).toEqual({ rungs: plan.rungs, degraded: false });
    expect(shouldSteerToCheaperRung({ assetId: ASSET, plan, rung: high, index: 3, deadline: Date.now() + 1_000 })).toBe(false);
    release = occupyEncoders({ busyMs: 60_000, queued: 0 });
    expect(affordableRungs(ASSET, plan, plan.rungs)).toEqual({ rungs: plan.rungs, degraded: false });
    expect(shouldSteerToCheaperRung({ assetId: ASSET, plan, rung: high, index: 3, deadline: Date.now() + 1_000 })).toBe(false);
  });

  it('under load offers a new player only the rungs that can be encoded in real time behind the queue', () => {
    // Every encoder is busy for 1 more second and one more such encode waits: new work starts in
    // 1 s, so 270p (0.4 s) and 540p (1.6 s) still finish within a segment's 4 s, 1080p (4.8 s) not.
    release = occupyEncoders({ busyMs: 1_000, queued: 1 });
    expect(affordableRungs(ASSET, plan, plan.rungs)).toEqual({ rungs: [low, mid], degraded: true });
  });

  it('always keeps the cheapest rung, however long the queue', async () => {
    release = occupyEncoders({ busyMs: 60_000, queued: 4 });
    expect(affordableRungs(ASSET, plan, plan.rungs)).toEqual({ rungs: [low], degraded: true });
  });

  it('steers a cold segment to a cheaper rung only when it would be late and a cheaper one would not', () => {
    // New work starts in 0.5 s.
    release = occupyEncoders({ busyMs: 500, queued: 1 });
    const now = Date.now();
    // Due in 3 s: 1080p needs 0.5 + 4.8 s, 540p 0.5 + 1.6 s.
    expect(shouldSteerToCheaperRung({ assetId: ASSET, plan, rung: high, index: 3, deadline: now + 3_000 })).toBe(true);
    // Due in 10 s: 1080p makes it.
    expect(shouldSteerToCheaperRung({ assetId: ASSET, plan, rung: high, index: 3, deadline: now + 10_000 })).toBe(false);
    // Due in 0.2 s: nobody makes it, so a refusal would only add a round trip.
    expect(shouldSteerToCheaperRung({ assetId: ASSET, plan, rung: high, index: 3, deadline: now + 200 })).toBe(false);
    // The cheapest rung is never refused.
    expect(shouldSteerToCheaperRung({ assetId: ASSET, plan, rung: low, index: 3, deadline: now })).toBe(false);
  });

  it('does not judge a rung nothing comparable has been measured for', () => {
    resetEncodeCosts();
    release = occupyEncoders({ busyMs: 60_000, queued: 4 });
    expect(affordableRungs(ASSET, plan, plan.rungs).degraded).toBe(false);
  });

  it("refuses a climb whose cold segment would run the viewer's buffer dry, but only while other viewers' work competes", () => {
    const now = Date.now();
    // Due in 1 s: 540p needs 1.6 s of encoding.
    const climb = { streamId: 'climber', assetId: ASSET, plan, rung: mid, from: '270p', index: 3, deadline: now + 1_000, now, advanced: true };
    expect(climbDoesNotFit(climb), 'a lone asset on quiet encoders: its player adapts').toBe(false);
    encodeDemand().admit('other-viewer', 'another-asset', '270p', now, { floorRung: '270p' });
    expect(climbDoesNotFit(climb), 'another asset is watched').toBe(true);
    expect(climbDoesNotFit({ ...climb, deadline: now + 3_000 }), 'with 3 s buffered it makes it').toBe(false);
    expect(climbDoesNotFit({ ...climb, rung: low, from: '540p' }), 'moving down is never refused').toBe(false);
    expect(climbDoesNotFit({ ...climb, advanced: false }), 'a client fetching a segment it has on another rung is no climb').toBe(false);
  });

  it('steers a playing viewer above its floor down while more is promised than the encoders keep up with', () => {
    const now = Date.now();
    expect(floorRungOf(plan)).toBe('270p');
    // Two slots: 1.5 CPU-s per second promised; 540p costs 0.4, 270p 0.1.
    for (const asset of ['a1', 'a2', 'a3']) encodeDemand().admit(`on-${asset}`, asset, '540p', now, { floorRung: '270p' });
    expect(exceedsFairShare({ assetId: 'a1', plan, rung: mid, index: 3, now })).toBe(false);
    for (const asset of ['a4', 'a5', 'a6', 'a7', 'a8']) encodeDemand().admit(`on-${asset}`, asset, '270p', now, { floorRung: '270p' });
    // The last ones were let in on their floors alone.
    expect(encodeDemand().demand(now)).toBeGreaterThan(1.5);
    expect(exceedsFairShare({ assetId: 'a1', plan, rung: mid, index: 3, now })).toBe(true);
    expect(exceedsFairShare({ assetId: 'a4', plan, rung: low, index: 3, now })).toBe(false);
  });
});
