import type { Prisma } from '../../db/generated/client';
import { getDb } from '../../db/client';
import { LookupCache } from '../../utils/lookup-cache';
import { nodeRuntime } from '../../runtime/node-runtime';

// Which asset or live stream a view's playback ID belongs to, looked up in batches when views are
// written and kept a while (views of one video beacon many times). A live stream's views also
// carry the asset recording it at the time.

export type PlaybackTarget = { playbackId: string; assetId: string | null; liveStreamId: string | null };

const UNKNOWN: PlaybackTarget = { playbackId: '', assetId: null, liveStreamId: null };

declare module '../../runtime/node-runtime' {
  interface NodeRuntime {
    /** By playback ID. */
    playbackTargets: LookupCache<PlaybackTarget>;
  }
}

export const createPlaybackTargets = (): LookupCache<PlaybackTarget> => new LookupCache<PlaybackTarget>({ maxEntries: 20_000, ttlMs: 5 * 60_000 });

const targets = (): LookupCache<PlaybackTarget> => nodeRuntime().playbackTargets;

const loadTargets = async (db: Prisma.TransactionClient, playbackIds: string[]): Promise<Map<string, PlaybackTarget>> => {
  const [assetIds, liveIds] = await Promise.all([
    db.playbackId.findMany({ where: { id: { in: playbackIds } }, select: { id: true, assetId: true } }),
    db.liveStreamPlaybackId.findMany({ where: { id: { in: playbackIds } }, select: { id: true, liveStreamId: true, liveStream: { select: { activeAssetId: true } } } }),
  ]);
  const found = new Map<string, PlaybackTarget>();
  for (const row of assetIds) found.set(row.id, { playbackId: row.id, assetId: row.assetId, liveStreamId: null });
  for (const row of liveIds) found.set(row.id, { playbackId: row.id, assetId: row.liveStream.activeAssetId, liveStreamId: row.liveStreamId });
  return found;
};

/** The target of each known playback ID among `playbackIds` (unknown ones are left out). */
export const findPlaybackTargets = async (playbackIds: readonly string[], db: Prisma.TransactionClient = getDb()): Promise<Map<string, PlaybackTarget>> => {
  const result = new Map<string, PlaybackTarget>();
  const missing: string[] = [];
  for (const id of new Set(playbackIds)) {
    const cached = targets().peek(id);
    if (cached === undefined) missing.push(id);
    else if (cached !== UNKNOWN) result.set(id, cached);
  }
  if (missing.length === 0) return result;
  const loaded = await loadTargets(db, missing);
  for (const id of missing) {
    const target = loaded.get(id);
    // Unknown IDs are remembered too (briefly, by the cache's TTL): beacons may name anything.
    await targets().get(id, async () => target ?? UNKNOWN);
    if (target) result.set(id, target);
  }
  return result;
};

/** The first candidate that is a known playback ID. */
export const targetOf = (candidates: readonly string[], known: ReadonlyMap<string, PlaybackTarget>): PlaybackTarget | null => {
  for (const id of candidates) {
    const target = known.get(id);
    if (target) return target;
  }
  return null;
};
