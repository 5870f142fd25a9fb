import { getLogger } from '../../log';
import { scrapeMetrics, type ScrapeResult } from '../../metrics/scrape';
import { encodingLoad } from '../playback/encoding-load';
import { segmentCache } from '../playback/runtime';
import { countQueuedJobs } from './count-queued-jobs';

// A scrape: the state kept elsewhere is read now (the queue from the database, the encoder and the
// rendition cache from memory), then every metric is rendered. A database that cannot answer
// leaves the queue's series out rather than failing the scrape, so the other metrics still arrive
// when they matter most.
export const renderMetrics = async (): Promise<ScrapeResult> => {
  const queuedJobs = await countQueuedJobs().catch((error: unknown) => {
    getLogger().warn({ err: error }, 'metrics: could not count queued jobs');
    return null;
  });
  const load = encodingLoad();
  return scrapeMetrics({
    queuedJobs,
    segmentCacheBytes: segmentCache().totalBytes(),
    encoder: { slots: load.encoderLimit, running: load.running, queuedByKind: load.queuedByKind, deadlineMisses: load.deadlineMisses },
  });
};
