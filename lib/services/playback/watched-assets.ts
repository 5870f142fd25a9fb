import type { PlaybackPlan } from './playback-plan';
import { playbackState } from './playback-state';

// Which assets people watch, counted in memory: the viewers (streams, see viewer-streams.ts) that
// fetched an asset's video within a window of recent minutes. Filling the cache in idle time
// follows this ranking, most-viewed first.

export const VIEW_WINDOW_MS = 30 * 60_000;
// Requests drive the pruning too, so the counts stay bounded whether or not anything ranks them.
const PRUNE_INTERVAL_MS = 60_000;

type AssetViews = { plan: PlaybackPlan; viewers: Map<string, number>; rungRequests: Map<string, number> };

export type WatchedAsset = { assetId: string; plan: PlaybackPlan; views: number; rungsByUse: string[] };

declare module './playback-state' {
  interface PlaybackState {
    watchedAssets: { byAsset: Map<string, AssetViews>; pruning: { lastAt: number } };
  }
}

const watched = () => playbackState().watchedAssets.byAsset;
const pruning = () => playbackState().watchedAssets.pruning;

const prune = (now: number) => {
  for (const [assetId, entry] of watched()) {
    for (const [viewer, lastSeen] of entry.viewers) if (now - lastSeen >= VIEW_WINDOW_MS) entry.viewers.delete(viewer);
    if (entry.viewers.size === 0) watched().delete(assetId);
  }
};

/** A video segment request by `viewer` (a stream id). */
export const recordWatching = ({
  assetId,
  plan,
  rung,
  viewer,
  now,
}: {
  assetId: string;
  plan: PlaybackPlan;
  rung: string;
  viewer: string;
  now: number;
}): void => {
  if (now - pruning().lastAt >= PRUNE_INTERVAL_MS) {
    pruning().lastAt = now;
    prune(now);
  }
  let entry = watched().get(assetId);
  if (!entry) {
    entry = { plan, viewers: new Map(), rungRequests: new Map() };
    watched().set(assetId, entry);
  }
  entry.plan = plan;
  entry.viewers.set(viewer, now);
  entry.rungRequests.set(rung, (entry.rungRequests.get(rung) ?? 0) + 1);
};

/** Assets viewed within the window, most viewers first; each with its rungs, most requested first. */
export const watchedAssets = (now: number): WatchedAsset[] => {
  prune(now);
  const ranked: WatchedAsset[] = [];
  for (const [assetId, entry] of watched()) {
    const rungsByUse = [...entry.rungRequests.entries()].sort((a, b) => b[1] - a[1]).map(([rung]) => rung);
    ranked.push({ assetId, plan: entry.plan, views: entry.viewers.size, rungsByUse });
  }
  return ranked.sort((a, b) => b.views - a.views);
};

/** The asset is gone (deleted) or cannot be encoded: stop ranking it. */
export const forgetWatchedAsset = (assetId: string): void => {
  watched().delete(assetId);
};
