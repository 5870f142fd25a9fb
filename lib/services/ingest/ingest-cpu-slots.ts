import { getEnv } from '../../env';
import { PrioritySemaphore } from '../../utils/priority-semaphore';
import { nodeRuntime } from '../../runtime/node-runtime';

// Many ingests are in flight at once (INGEST_CONCURRENCY), each mostly waiting for bytes. Their
// CPU-bound steps (ffprobe and the decode checks: tens to hundreds of milliseconds of a core each)
// take turns in these slots, sized to the cores, so a burst of creates finishes its checks one
// after another at full speed instead of all at once at a crawl while the downloads run freely.
// One slot holds all of one ingest's checks: they start together (see inspect-while-downloading.ts),
// and a lone ingest keeps the time-to-ready it had before.

const IDLE_POLL_MS = 250;

declare module '../../runtime/node-runtime' {
  interface NodeRuntime {
    ingestCpuSlots: PrioritySemaphore;
  }
}

export const createIngestCpuSlots = (): PrioritySemaphore => new PrioritySemaphore(getEnv().ingestCpuConcurrency);

const cpuSlots = (): PrioritySemaphore => nodeRuntime().ingestCpuSlots;

/** Runs `checks` once an ingest CPU slot is free (first come, first served); aborting stops the wait. */
export const withIngestCpuSlot = <T>(signal: AbortSignal, checks: () => Promise<T>): Promise<T> => cpuSlots().run(0, checks, signal);

const hasRoom = () => cpuSlots().pending() === 0 && cpuSlots().active() < getEnv().ingestCpuConcurrency;

/**
 * Resolves once no ingest is waiting for a CPU slot and one is free. Work that can wait (the
 * encodes that follow readiness, ~0.6 s of a core for a 30 s audio track) waits for this, so
 * during a burst of creates the assets still preparing get the cores first; viewers' own requests
 * never wait for it. Rejects with the signal's reason when aborted.
 */
export const whenIngestCpuHasRoom = async (signal: AbortSignal): Promise<void> => {
  while (!hasRoom()) {
    signal.throwIfAborted();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, IDLE_POLL_MS);
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }
  signal.throwIfAborted();
};
