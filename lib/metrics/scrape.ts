import { metricSet } from './metric-set';

// Renders every metric for a scrape. Gauges of state that lives elsewhere (the job queue in the
// database, the encoder, the rendition cache) are set from a snapshot the caller takes just before.

export type ScrapeSnapshot = {
  /** Pending jobs per job name; null when they could not be counted (the series are then left out). */
  queuedJobs: ReadonlyMap<string, number> | null;
  segmentCacheBytes: number;
  encoder: { slots: number; running: number; queuedByKind: Readonly<Record<string, number>>; deadlineMisses: number };
};

export type ScrapeResult = { contentType: string; body: string };

const setQueuedJobs = (queuedJobs: ReadonlyMap<string, number> | null): void => {
  const { jobsQueued, queuedJobNames } = metricSet();
  jobsQueued.reset();
  if (!queuedJobs) return;
  for (const name of queuedJobs.keys()) queuedJobNames.add(name);
  for (const name of queuedJobNames) jobsQueued.set({ name }, queuedJobs.get(name) ?? 0);
};

export const scrapeMetrics = async (snapshot: ScrapeSnapshot): Promise<ScrapeResult> => {
  const metrics = metricSet();
  setQueuedJobs(snapshot.queuedJobs);
  metrics.segmentCacheBytes.set(snapshot.segmentCacheBytes);
  metrics.encoderSlots.set(snapshot.encoder.slots);
  metrics.encoderRunning.set(snapshot.encoder.running);
  for (const [kind, queued] of Object.entries(snapshot.encoder.queuedByKind)) metrics.encoderQueued.set({ kind }, queued);
  // The scheduler keeps the count; the counter mirrors it.
  metrics.encoderDeadlineMisses.reset();
  metrics.encoderDeadlineMisses.inc(snapshot.encoder.deadlineMisses);
  const body = (await metrics.registry.metrics()) + '\n' + metrics.httpRequests.render();
  return { contentType: metrics.registry.contentType, body };
};
