import type { Logger } from 'pino';
import { getEnv } from '../../env';
import type { Rung } from '../../media/hls/ladder';
import { mediaSegmentPath } from '../../storage/asset-files';
import { ENCODE_PRIORITY, encodeKey, encoderScheduler, inFlightEncodes, segmentCache, dropEncode } from './runtime';
import { ensureVideoSegment } from './video-segments';
import { forgetWatchedAsset, watchedAssets, type WatchedAsset } from './watched-assets';

// Filling the cache in idle time: when no viewer needs the encoders, the segments not encoded yet
// of the just-in-time rungs (≤1080p) of the assets people watch are encoded, most-viewed asset
// first, its most-requested rungs first, then its others from the cheapest up (so a viewer sent to
// a cheaper rung under load finds it cached). Each encode is idle work for the scheduler: it runs
// at nice 19, only on an encoder nothing else wants, and is preempted the moment a viewer's
// segment needs the slot. Filling stops short of the rendition cache's cap, so it never evicts a
// segment to make room for another.

// Room left in the cache for the segments viewers ask for: filling stops at this share of the cap.
const FILL_UP_TO_SHARE_OF_CAP = 0.9;
// Filling starts once no viewer work has been queued or running for this long: a player asks for
// its next segment every few seconds, and work preempted seconds after it started is CPU wasted.
const QUIET_BEFORE_FILL_MS = 2_000;
const TICK_MS = 1_000;

type Candidate = { asset: WatchedAsset; rung: Rung; index: number };

const fillOrder = (asset: WatchedAsset): Rung[] => {
  const rungs = asset.plan.rungs.filter((rung) => !rung.isBackground);
  const used = asset.rungsByUse.map((name) => rungs.find((rung) => rung.name === name)).filter((rung): rung is Rung => rung !== undefined);
  const rest = rungs.filter((rung) => !used.includes(rung)).sort((a, b) => a.width * a.height - b.width * b.height);
  return [...used, ...rest];
};

// The largest a segment of this rung can be (its peak bitrate), so a fill encode never pushes the
// cache past where filling stops.
const worstCaseBytes = (rung: Rung, seconds: number) => Math.ceil((rung.maxBitrate / 8) * seconds);

export type LadderFill = { stop: () => void };

export const startLadderFill = ({ log, tickMs = TICK_MS }: { log: Logger; tickMs?: number }): LadderFill => {
  let stopped = false;
  const running = new Map<string, number>();
  // Per asset and rung, the next segment to look at, so a pass does not scan from segment 0.
  const cursors = new Map<string, Map<string, number>>();

  const nextCandidate = (): Candidate | null => {
    const dataDir = getEnv().dataDir;
    const ranked = watchedAssets(Date.now());
    for (const assetId of cursors.keys()) if (!ranked.some((asset) => asset.assetId === assetId)) cursors.delete(assetId);
    for (const asset of ranked) {
      const segments = asset.plan.video?.segments ?? [];
      const assetCursors = cursors.get(asset.assetId) ?? new Map<string, number>();
      cursors.set(asset.assetId, assetCursors);
      for (const rung of fillOrder(asset)) {
        for (let index = assetCursors.get(rung.name) ?? 0; index < segments.length; index++) {
          const key = encodeKey(asset.assetId, rung.name, index);
          if (inFlightEncodes().has(key) || segmentCache().has(mediaSegmentPath(dataDir, asset.assetId, rung.name, index))) continue;
          // Taken once: a fill that fails or is dropped is not retried until the asset is ranked anew.
          assetCursors.set(rung.name, index + 1);
          return { asset, rung, index };
        }
        assetCursors.set(rung.name, segments.length);
      }
    }
    return null;
  };

  const fill = () => {
    if (stopped || encoderScheduler().quietForMs() < QUIET_BEFORE_FILL_MS) return;
    const cap = getEnv().renditionCacheMaxBytes * FILL_UP_TO_SHARE_OF_CAP;
    // The encode reaches the scheduler only after a look at the disk, so the free slots are
    // counted once here; a launch that finds its slot taken meanwhile waits in the idle queue,
    // which keeps the next pass from launching more.
    for (let launches = encoderScheduler().idleCapacity(); launches > 0; launches--) {
      const candidate = nextCandidate();
      if (!candidate) return;
      const { asset, rung, index } = candidate;
      const bytes = worstCaseBytes(rung, asset.plan.video?.segments[index]?.duration ?? 0);
      const pending = [...running.values()].reduce((sum, value) => sum + value, 0);
      if (segmentCache().totalBytes() + pending + bytes > cap) return;
      const key = encodeKey(asset.assetId, rung.name, index);
      running.set(key, bytes);
      ensureVideoSegment({ assetId: asset.assetId, plan: asset.plan, rung, index, priority: ENCODE_PRIORITY.fill })
        .catch((error: unknown) => {
          if (stopped) return;
          // A deleted asset, or one whose source cannot be encoded: not worth another try.
          log.warn({ err: error, work: key }, 'filling the cache stopped for this asset');
          forgetWatchedAsset(asset.assetId);
          cursors.delete(asset.assetId);
        })
        .finally(() => {
          running.delete(key);
          fill();
        });
    }
  };

  const unsubscribe = encoderScheduler().onIdle(() => queueMicrotask(fill));
  const timer = setInterval(fill, tickMs);
  timer.unref();
  fill();

  return {
    stop: () => {
      stopped = true;
      clearInterval(timer);
      unsubscribe();
      for (const key of running.keys()) {
        const flight = inFlightEncodes().get(key);
        if (flight && flight.kind === 'background' && flight.viewers === 0) dropEncode(flight, 'the server is shutting down');
      }
    },
  };
};
