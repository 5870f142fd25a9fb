import { processSingleton } from '../../utils/process-singleton';
import type { PlaybackPlan } from './playback-plan';

// Which assets people watch, counted in memory: a view is a viewer starting to fetch an asset's
// video (a new stream, see viewer-streams.ts), kept for a window of recent minutes. Filling the
// cache in idle time follows this ranking, most-viewed first.

export const VIEW_WINDOW_MS = 30 * 60_000;

type AssetViews = { assetId: string; plan: PlaybackPlan; views: number[]; rungRequests: Map<string, number> };

export type WatchedAsset = { assetId: string; plan: PlaybackPlan; views: number; rungsByUse: string[] };

const watched = () => processSingleton('watched-assets', () => new Map<string, AssetViews>());

const prune = (entry: AssetViews, now: number) => {
  const keepFrom = entry.views.findIndex((at) => now - at < VIEW_WINDOW_MS);
  if (keepFrom === -1) entry.views.length = 0;
  else if (keepFrom > 0) entry.views.splice(0, keepFrom);
};

/** A video segment request; `isNewViewer` when it started a stream. */
export const recordWatching = ({
  assetId,
  plan,
  rung,
  isNewViewer,
  now,
}: {
  assetId: string;
  plan: PlaybackPlan;
  rung: string;
  isNewViewer: boolean;
  now: number;
}): void => {
  let entry = watched().get(assetId);
  if (!entry) {
    entry = { assetId, plan, views: [], rungRequests: new Map() };
    watched().set(assetId, entry);
  }
  entry.plan = plan;
  if (isNewViewer) entry.views.push(now);
  entry.rungRequests.set(rung, (entry.rungRequests.get(rung) ?? 0) + 1);
};

/** Assets viewed within the window, most views first; each with its rungs, most requested first. */
export const watchedAssets = (now: number): WatchedAsset[] => {
  const ranked: WatchedAsset[] = [];
  for (const [assetId, entry] of watched()) {
    prune(entry, now);
    if (entry.views.length === 0) {
      watched().delete(assetId);
      continue;
    }
    const rungsByUse = [...entry.rungRequests.entries()].sort((a, b) => b[1] - a[1]).map(([rung]) => rung);
    ranked.push({ assetId, plan: entry.plan, views: entry.views.length, rungsByUse });
  }
  return ranked.sort((a, b) => b.views - a.views);
};

/** The asset is gone (deleted) or cannot be encoded: stop ranking it. */
export const forgetWatchedAsset = (assetId: string): void => {
  watched().delete(assetId);
};
