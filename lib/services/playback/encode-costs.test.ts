import { beforeEach, describe, expect, it } from 'vitest';
import { encodeCostPerMediaSecond, recordEncodeCost, resetEncodeCosts, rungCosts } from './encode-costs';

describe('encode costs per rung', () => {
  beforeEach(resetEncodeCosts);

  it('keeps a smoothed cost per second of media, per rung', () => {
    recordEncodeCost({ rung: '540p', wallSeconds: 1, mediaSeconds: 4 });
    expect(rungCosts()).toEqual([{ rung: '540p', samples: 1, secondsPerMediaSecond: 0.25 }]);
    recordEncodeCost({ rung: '540p', wallSeconds: 3, mediaSeconds: 4 });
    const [cost] = rungCosts();
    expect(cost?.samples).toBe(2);
    // Moves toward the new sample (0.75) without jumping to it.
    expect(cost?.secondsPerMediaSecond).toBeCloseTo(0.25 + 0.2 * 0.5, 10);
    recordEncodeCost({ rung: '540p', wallSeconds: 1, mediaSeconds: 0 });
    expect(rungCosts()[0]?.samples, 'a sample without media is ignored').toBe(2);
  });

  it('estimates an unmeasured rung from the nearest measured one by pixel count, and says so', () => {
    expect(encodeCostPerMediaSecond('720p')).toBeNull();
    recordEncodeCost({ rung: '360p', wallSeconds: 0.4, mediaSeconds: 4 });
    recordEncodeCost({ rung: 'audio', wallSeconds: 3, mediaSeconds: 300 });
    expect(encodeCostPerMediaSecond('360p')).toEqual({ secondsPerMediaSecond: 0.1, measured: true });
    const estimate = encodeCostPerMediaSecond('720p');
    expect(estimate?.measured).toBe(false);
    expect(estimate?.secondsPerMediaSecond).toBeCloseTo(0.4, 10);
    expect(encodeCostPerMediaSecond('audio')).toEqual({ secondsPerMediaSecond: 0.01, measured: true });
  });
});
