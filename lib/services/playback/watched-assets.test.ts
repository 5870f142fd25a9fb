import { describe, expect, it } from 'vitest';
import type { PlaybackPlan } from './playback-plan';
import { forgetWatchedAsset, recordWatching, VIEW_WINDOW_MS, watchedAssets } from './watched-assets';

const plan: PlaybackPlan = { video: null, rungs: [], audio: null };

describe('watched assets', () => {
  it('ranks assets by viewers in the window, each with its rungs by use, and forgets old views', () => {
    const at = 5_000_000;
    recordWatching({ assetId: 'quiet', plan, rung: '540p', viewer: 's1', now: at });
    for (const viewer of ['s2', 's3', 's4']) recordWatching({ assetId: 'popular', plan, rung: '360p', viewer, now: at + 10 });
    recordWatching({ assetId: 'popular', plan, rung: '720p', viewer: 's2', now: at + 20 });
    recordWatching({ assetId: 'popular', plan, rung: '360p', viewer: 's2', now: at + 30 });
    expect(watchedAssets(at + 40).map(({ assetId, views, rungsByUse }) => ({ assetId, views, rungsByUse }))).toEqual([
      { assetId: 'popular', views: 3, rungsByUse: ['360p', '720p'] },
      { assetId: 'quiet', views: 1, rungsByUse: ['540p'] },
    ]);
    // A viewer still watching keeps its asset ranked; one gone for the whole window does not.
    recordWatching({ assetId: 'quiet', plan, rung: '540p', viewer: 's1', now: at + VIEW_WINDOW_MS });
    expect(watchedAssets(at + VIEW_WINDOW_MS + 100).map((asset) => [asset.assetId, asset.views])).toEqual([['quiet', 1]]);
    forgetWatchedAsset('quiet');
    expect(watchedAssets(at + VIEW_WINDOW_MS + 200)).toEqual([]);
  });
});
