import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import type { Beacon, BeaconEvent } from '../../analytics/beacon-schema';
import type { ViewerAgent } from '../../analytics/user-agent';
import { ApiError } from '../../errors/api-error';
import { nodeRuntime } from '../../runtime/node-runtime';
import { emptySlot, type Slot } from '../../utils/slot';
import { writeViews, type PendingBeacon, type StoredState, type ViewWrite } from './view-store';

// Takes mux-embed beacons in, answers at once, and writes the views they describe in batches.
// Per view it holds the events received since the last write (pending) and the state it last
// wrote (an LRU bounded by size; a view evicted, or never seen on this node, is read again from
// the database when it is next written). Clean states not touched for a while are dropped, so
// memory returns to its baseline after a burst.

export type CollectorOptions = {
  flushIntervalMs: number;
  /** Bytes of kept view states (their JSON length). */
  maxKeptBytes: number;
  /** A kept state not written for this long is dropped. */
  keptIdleMs: number;
  /** Beyond this many pending events, beacons are refused (503) until a write catches up. */
  maxPendingEvents: number;
  log: Logger;
};

const DEFAULT_OPTIONS: Omit<CollectorOptions, 'log'> = {
  flushIntervalMs: 2_000,
  maxKeptBytes: 64 * 1024 * 1024,
  keptIdleMs: 2 * 60_000,
  maxPendingEvents: 200_000,
};

type Kept = { stored: StoredState; bytes: number };

export class Collector {
  private readonly options: CollectorOptions;
  private readonly kept: LRUCache<string, Kept>;
  private pending = new Map<string, PendingBeacon[]>();
  private pendingEvents = 0;
  private flushing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(options: Partial<CollectorOptions> & { log: Logger }) {
    this.options = { ...DEFAULT_OPTIONS, ...options };
    this.kept = new LRUCache<string, Kept>({
      maxSize: this.options.maxKeptBytes,
      sizeCalculation: (entry) => Math.max(1, entry.bytes),
      ttl: this.options.keptIdleMs,
      updateAgeOnGet: false,
    });
  }

  /** Queues a beacon's events by view. Throws ApiError service_unavailable when too much is pending. */
  accept(beacon: Beacon, { receivedAt, agent }: { receivedAt: number; agent: ViewerAgent | null }): void {
    if (this.pendingEvents + beacon.events.length > this.options.maxPendingEvents) {
      throw new ApiError('service_unavailable', 'The collector is catching up; send the beacon again later', { 'retry-after': '5' });
    }
    const byView = new Map<string, BeaconEvent[]>();
    for (const event of beacon.events) {
      const events = byView.get(event.viewId);
      if (events) events.push(event);
      else byView.set(event.viewId, [event]);
    }
    const context = { receivedAt, transmissionTimestamp: beacon.transmissionTimestamp, agent };
    for (const [viewId, events] of byView) {
      const queue = this.pending.get(viewId);
      if (queue) queue.push({ events, context });
      else this.pending.set(viewId, [{ events, context }]);
    }
    this.pendingEvents += beacon.events.length;
  }

  get pendingEventCount(): number {
    return this.pendingEvents;
  }

  get keptViewCount(): number {
    return this.kept.size;
  }

  /** Writes what is pending (waits for a write in progress first). */
  flush(): Promise<void> {
    const run = async (): Promise<void> => {
      if (this.flushing) await this.flushing.catch(() => undefined);
      if (this.pending.size === 0) return;
      const batch = this.pending;
      const batchEvents = this.pendingEvents;
      this.pending = new Map();
      this.pendingEvents = 0;
      const writes: ViewWrite[] = [...batch].map(([viewId, pending]) => ({ viewId, stored: this.kept.get(viewId)?.stored, pending }));
      try {
        const written = await writeViews(writes);
        for (const [viewId, stored] of written) this.kept.set(viewId, { stored, bytes: JSON.stringify(stored.state).length });
      } catch (error) {
        // Nothing is lost: the batch goes back in front of what came meanwhile, for the next write.
        for (const [viewId, pending] of this.pending) batch.set(viewId, [...(batch.get(viewId) ?? []), ...pending]);
        this.pending = batch;
        this.pendingEvents += batchEvents;
        throw error;
      } finally {
        this.kept.purgeStale();
      }
    };
    const flushing = run().finally(() => {
      if (this.flushing === flushing) this.flushing = null;
    });
    this.flushing = flushing;
    return flushing;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.flushing || this.pending.size === 0) {
        this.kept.purgeStale();
        return;
      }
      this.flush().catch((error: unknown) => this.options.log.error({ err: error }, 'writing playback views failed; retrying at the next flush'));
    }, this.options.flushIntervalMs);
    this.timer.unref();
  }

  /** Stops the timer and writes what is pending (shutdown). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }
}

declare module '../../runtime/node-runtime' {
  interface NodeRuntime {
    /** Empty until the first beacon or the server's start asks for the collector. */
    collector: Slot<Collector>;
  }
}

export const createCollectorSlot = (): Slot<Collector> => emptySlot();

/** The node's collector (made on first use, logging to what that first caller gives; the server starts its timer). */
export const collector = (log: () => Logger): Collector => {
  const slot = nodeRuntime().collector;
  return (slot.current ??= new Collector({ log: log() }));
};
