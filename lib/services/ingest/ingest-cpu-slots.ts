import { getEnv } from '../../env';
import { PrioritySemaphore } from '../../utils/priority-semaphore';
import { processSingleton } from '../../utils/process-singleton';

// Many ingests are in flight at once (INGEST_CONCURRENCY), each mostly waiting for bytes. Their
// CPU-bound steps (ffprobe and the decode checks: tens to hundreds of milliseconds of a core each)
// take turns in these slots, sized to the cores, so a burst of creates finishes its checks one
// after another at full speed instead of all at once at a crawl while the downloads run freely.
// One slot holds all of one ingest's checks: they start together (see inspect-while-downloading.ts),
// and a lone ingest keeps the time-to-ready it had before.

const cpuSlots = () => processSingleton('ingest-cpu-slots', () => new PrioritySemaphore(getEnv().ingestCpuConcurrency));

/** Runs `checks` once an ingest CPU slot is free (first come, first served); aborting stops the wait. */
export const withIngestCpuSlot = <T>(signal: AbortSignal, checks: () => Promise<T>): Promise<T> => cpuSlots().run(0, checks, signal);
