import { beforeEach, describe, expect, it } from 'vitest';
import { encodeCostPerMediaSecond, recordEncodeCost, resetEncodeCosts, rungCosts } from './encode-costs';

describe('encode costs per rung', () => {
  beforeEach(resetEncodeCosts);

  it('keeps a smoothed cost per second of media, per rung', () => {
    recordEncodeCost({ rung: '540p', cpuSeconds: 1, mediaSeconds: 4 });
    expect(rungCosts()).toEqual([{ rung: '540p', samples: 1, secondsPerMediaSecond: 0.25 }]);
    recordEncodeCost({ rung: '540p', cpuSeconds: 3, mediaSeconds: 4 });
    const [cost] = rungCosts();
    expect(cost?.samples).toBe(2);
    // Moves toward the new sample (0.75) without jumping to it.
    expect(cost?.secondsPerMediaSecond).toBeCloseTo(0.25 + 0.2 * 0.5, 10);
    recordEncodeCost({ rung: '540p', cpuSeconds: 1, mediaSeconds: 0 });
    expect(rungCosts()[0]?.samples, 'a sample without media is ignored').toBe(2);
  });

  it('estimates an unmeasured rung from one measured rung, half of its cost fixed (the decode), and says so', () => {
    expect(encodeCostPerMediaSecond('720p')).toBeNull();
    recordEncodeCost({ rung: '360p', cpuSeconds: 0.4, mediaSeconds: 4 });
    recordEncodeCost({ rung: 'audio', cpuSeconds: 3, mediaSeconds: 300 });
    expect(encodeCostPerMediaSecond('360p')).toEqual({ secondsPerMediaSecond: 0.1, measured: true });
    const estimate = encodeCostPerMediaSecond('720p');
    expect(estimate?.measured).toBe(false);
    // 0.1 × (0.5 + 0.5 × 4): four times the pixels, but not four times the cost.
    expect(estimate?.secondsPerMediaSecond).toBeCloseTo(0.25, 10);
    expect(encodeCostPerMediaSecond('audio')).toEqual({ secondsPerMediaSecond: 0.01, measured: true });
  });

  it('with two measured rungs, puts the others on the line through them in the pixel count', () => {
    // Measured on the capacity benchmark's 1080p camera-like source: 270p 0.397, 540p 0.535.
    recordEncodeCost({ rung: '270p', cpuSeconds: 0.397, mediaSeconds: 1 });
    recordEncodeCost({ rung: '540p', cpuSeconds: 0.535, mediaSeconds: 1 });
    // The line through them gives 360p ≈ 0.433 and 1080p ≈ 1.09 (its own measurement there was 0.61:
    // superfast above 720p; the estimate stands only until that rung is measured).
    expect(encodeCostPerMediaSecond('360p')?.secondsPerMediaSecond).toBeCloseTo(0.397 + ((0.535 - 0.397) / (540 ** 2 - 270 ** 2)) * (360 ** 2 - 270 ** 2), 10);
    expect(encodeCostPerMediaSecond('360p')?.measured).toBe(false);
  });
});
