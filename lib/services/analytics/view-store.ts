import type { BeaconEvent } from '../../analytics/beacon-schema';
import { videoViewIdFor } from '../../analytics/view-ids';
import { emptyViewState, mergeBeaconEvents, type BeaconContext, type ViewState } from '../../analytics/view-state';
import { playbackIdCandidates, playbackIdCandidatesIn, summarizeView } from '../../analytics/view-summary';
import { databaseProviderOf, getDb } from '../../db/client';
import type { Prisma } from '../../db/generated/client';
import { findPlaybackTargets, targetOf, type PlaybackTarget } from './playback-targets';

// Writing views to the database. A node holds, per view, the events it received since its last
// write and the stored state it last read or wrote (with its version). A write merges the events
// into that state and is conditional on the version: if another node wrote the view meanwhile,
// this one reads the stored state again and merges its events into that. Events are deduplicated
// by sequence number in the merge, so nothing is counted twice and nothing is lost whichever node
// writes first. On SQLite one batch is one transaction (one commit, not one per view).

export type StoredState = { state: ViewState; version: number };
export type PendingBeacon = { events: BeaconEvent[]; context: BeaconContext };
export type ViewWrite = { viewId: string; stored: StoredState | null | undefined; pending: PendingBeacon[] };

type Client = Prisma.TransactionClient;
type Targets = Map<string, PlaybackTarget>;

const MAX_ATTEMPTS = 4;
const SQLITE_BATCH_TIMEOUT_MS = 60_000;
const YIELD_EVERY_VIEWS = 10;

const loadStored = async (db: Client, viewIds: readonly string[]): Promise<Map<string, StoredState>> => {
  const rows = await db.playbackView.findMany({ where: { viewId: { in: [...viewIds] } }, select: { viewId: true, stateJson: true, version: true } });
  return new Map(rows.map((row) => [row.viewId, { state: JSON.parse(row.stateJson) as ViewState, version: row.version }]));
};

/** The stored state with the pending events merged (a copy), or null when they were all merged before. */
const merged = (stored: StoredState | null, pending: readonly PendingBeacon[]): ViewState | null => {
  const first = pending[0];
  if (!first) return null;
  const state = stored ? structuredClone(stored.state) : emptyViewState(first.events[0]?.viewId ?? '', first.context.receivedAt);
  let changed = stored === null;
  for (const beacon of pending) changed = mergeBeaconEvents(state, beacon.events, beacon.context) || changed;
  return changed ? state : null;
};

const columnsOf = (state: ViewState, targets: Targets, closedByInactivity = false) => {
  const target = targetOf(playbackIdCandidates(state), targets);
  return {
    ...summarizeView(state, { closedByInactivity }),
    playbackId: target?.playbackId ?? null,
    assetId: target?.assetId ?? null,
    liveStreamId: target?.liveStreamId ?? null,
    lastSequence: Math.max(0, state.lastSequence),
    stateJson: JSON.stringify(state),
  };
};

const isUniqueViolation = (error: unknown) => typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'P2002';

/** One attempt: true when written, false when another node got there first. */
const tryWrite = async (db: Client, viewId: string, stored: StoredState | null, state: ViewState, targets: Targets): Promise<boolean> => {
  const columns = columnsOf(state, targets);
  if (stored === null) {
    try {
      await db.playbackView.create({ data: { id: videoViewIdFor(viewId), viewId, version: 1, ...columns } });
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }
  const { count } = await db.playbackView.updateMany({ where: { viewId, version: stored.version }, data: { ...columns, version: stored.version + 1 } });
  return count === 1;
};

const writeOne = async (db: Client, write: ViewWrite & { stored: StoredState | null }, targets: Targets): Promise<StoredState | null> => {
  let stored = write.stored;
  for (let attempt = 1; ; attempt += 1) {
    const state = merged(stored, write.pending);
    if (state === null) return stored;
    const candidates = playbackIdCandidates(state).filter((id) => !targets.has(id));
    if (candidates.length > 0) for (const [id, target] of await findPlaybackTargets(candidates, db)) targets.set(id, target);
    if (await tryWrite(db, write.viewId, stored, state, targets)) return { state, version: (stored?.version ?? 0) + 1 };
    if (attempt === MAX_ATTEMPTS) throw new Error(`view ${write.viewId} kept changing under its write (${MAX_ATTEMPTS} attempts)`);
    stored = (await loadStored(db, [write.viewId])).get(write.viewId) ?? null;
  }
};

/**
 * Writes each view's pending events; returns the stored state each view now has (for the next
 * write to start from). `stored: undefined` means not known on this node: it is read first, in
 * one query for all such views, as are the playback IDs the views name.
 */
export const writeViews = async (writes: readonly ViewWrite[]): Promise<Map<string, StoredState>> => {
  const db = getDb();
  const unknown = writes.filter((write) => write.stored === undefined).map((write) => write.viewId);
  const loaded = unknown.length > 0 ? await loadStored(db, unknown) : new Map<string, StoredState>();
  const prepared = writes.map((write) => ({ ...write, stored: write.stored === undefined ? (loaded.get(write.viewId) ?? null) : write.stored }));
  const candidates = prepared.flatMap((write) => {
    const state = write.stored?.state;
    const sent = write.pending.flatMap((beacon) => beacon.events.flatMap((event) => playbackIdCandidatesIn(event.fields)));
    return [...(state ? playbackIdCandidates(state) : []), ...sent];
  });
  const targets = await findPlaybackTargets(candidates, db);
  const writeAll = async (client: Client) => {
    const result = new Map<string, StoredState>();
    for (const [index, write] of prepared.entries()) {
      // SQLite answers synchronously, so a batch would hold the event loop (and every beacon
      // waiting to be answered) for its whole length without these pauses.
      if (index % YIELD_EVERY_VIEWS === YIELD_EVERY_VIEWS - 1) await new Promise((resolve) => setImmediate(resolve));
      const stored = await writeOne(client, write, targets);
      if (stored) result.set(write.viewId, stored);
    }
    return result;
  };
  // PostgreSQL aborts a whole transaction on one failed statement (a create another node won),
  // and commits cheaply: there each view is written on its own.
  if (databaseProviderOf(db) !== 'sqlite') return writeAll(db);
  return db.$transaction(writeAll, { timeout: SQLITE_BATCH_TIMEOUT_MS, maxWait: SQLITE_BATCH_TIMEOUT_MS });
};

/**
 * Closes views without a beacon since `cutoff` (the player left without a viewend): their
 * summary is taken again, as a view that ended. Returns how many were closed.
 */
export const closeInactiveViews = async (cutoff: Date, batch = 500): Promise<number> => {
  const db = getDb();
  const rows = await db.playbackView.findMany({ where: { closed: false, lastBeaconAt: { lt: cutoff } }, select: { id: true, version: true, stateJson: true }, take: batch });
  const states = rows.map((row) => JSON.parse(row.stateJson) as ViewState);
  const targets = await findPlaybackTargets(states.flatMap(playbackIdCandidates), db);
  let closed = 0;
  for (const [index, row] of rows.entries()) {
    const columns = columnsOf(states[index] as ViewState, targets, true);
    // A view that got a beacon meanwhile changed version and stays open.
    const { count } = await db.playbackView.updateMany({ where: { id: row.id, version: row.version }, data: { ...columns, closed: true, version: row.version + 1 } });
    closed += count;
  }
  return closed;
};

/** Deletes views that ended before `cutoff` (retention). */
export const deleteViewsEndedBefore = async (cutoff: Date): Promise<number> =>
  (await getDb().playbackView.deleteMany({ where: { viewEnd: { lt: cutoff } } })).count;
