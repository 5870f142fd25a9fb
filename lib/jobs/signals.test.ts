import { describe, expect, test } from 'vitest';
import { cancelAssetWork, withAssetCancellation } from './signals';

describe('asset cancellation', () => {
  test('work running on an asset is aborted when the asset is deleted', async () => {
    let seen: AbortSignal | null = null;
    const running = withAssetCancellation('asset-running', undefined, async (signal) => {
      seen = signal;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return signal.aborted;
    });
    cancelAssetWork('asset-running');
    expect(await running).toBe(true);
    expect(String((seen as AbortSignal | null)?.reason)).toContain('was deleted');
  });

  test('work that starts after the deletion (queued before it) starts aborted', async () => {
    cancelAssetWork('asset-gone');
    expect(await withAssetCancellation('asset-gone', undefined, async (signal) => signal.aborted)).toBe(true);
    expect(await withAssetCancellation('asset-other', undefined, async (signal) => signal.aborted)).toBe(false);
  });
});
