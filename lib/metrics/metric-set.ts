import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { nodeRuntime } from '../runtime/node-runtime';
import { HttpRequestTally } from './http-request-tally';

// The process's metrics: one registry, shared by the server entry and the Next.js bundle (each
// loads this module separately, so the registry is a part of the node runtime, see
// lib/runtime/node-runtime.ts). Other layers record through the
// functions in record.ts and never touch prom-client themselves.

// A segment on a small machine takes from a fraction of a second (270p) to tens of seconds (2160p).
const ENCODE_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120, 300];
// Jobs range from a queued audio encode (milliseconds) to a large download (up to an hour).
const JOB_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];
const INGEST_STEP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600];

export const createMetricSet = () => {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'keyframe_' });
  const registers = [registry];
  const set = {
    registry,
    httpRequests: new HttpRequestTally(),
    segmentEncodes: new Counter({
      name: 'keyframe_segment_encodes_total',
      help: 'Segment encodes finished, by rung, scheduler priority (deadline, speculative, idle; background: rungs above 1080p) and result (ok, error, cancelled).',
      labelNames: ['rung', 'priority', 'result'] as const,
      registers,
    }),
    segmentEncodeDuration: new Histogram({
      name: 'keyframe_segment_encode_duration_seconds',
      help: 'Running time of successful segment encodes (the waiting in the queue not included), by rung and scheduler priority.',
      labelNames: ['rung', 'priority'] as const,
      buckets: ENCODE_BUCKETS,
      registers,
    }),
    segmentCacheRequests: new Counter({
      name: 'keyframe_segment_cache_requests_total',
      help: "Viewers' requests for just-in-time video segments, by whether the rendition cache had the segment (hit) or it had to be encoded first (miss).",
      labelNames: ['result'] as const,
      registers,
    }),
    segmentCacheBytes: new Gauge({
      name: 'keyframe_segment_cache_bytes',
      help: 'Bytes of just-in-time video segments on disk (capped by RENDITION_CACHE_MAX_BYTES).',
      registers,
    }),
    jobsQueued: new Gauge({
      name: 'keyframe_jobs_queued',
      help: 'Jobs waiting in the database queue (pending, including retries not due yet), by job name.',
      labelNames: ['name'] as const,
      registers,
    }),
    jobDuration: new Histogram({
      name: 'keyframe_job_duration_seconds',
      help: 'Running time of queued jobs, by job name and result (ok, error, cancelled: stopped by a shutdown and put back).',
      labelNames: ['name', 'result'] as const,
      buckets: JOB_BUCKETS,
      registers,
    }),
    ingestStepDuration: new Histogram({
      name: 'keyframe_ingest_step_duration_seconds',
      help: 'Time each step of an ingest took, by step; total is from the start of the ingest job to ready.',
      labelNames: ['step'] as const,
      buckets: INGEST_STEP_BUCKETS,
      registers,
    }),
    webhookDeliveries: new Counter({
      name: 'keyframe_webhook_deliveries_total',
      help: 'Webhook delivery attempts, by result (delivered; retry: failed, another attempt is scheduled; failed: failed, no more attempts).',
      labelNames: ['result'] as const,
      registers,
    }),
    encoderSlots: new Gauge({
      name: 'keyframe_encoder_slots',
      help: 'Encodes the just-in-time encoder runs at once (JIT_ENCODE_CONCURRENCY).',
      registers,
    }),
    encoderRunning: new Gauge({
      name: 'keyframe_encoder_running',
      help: 'Encodes running in the just-in-time encoder now.',
      registers,
    }),
    encoderQueued: new Gauge({
      name: 'keyframe_encoder_queued',
      help: 'Encodes waiting for the just-in-time encoder, by kind (onDemand: a viewer waits; prefetch; audio; background).',
      labelNames: ['kind'] as const,
      registers,
    }),
    encoderDeadlineMisses: new Counter({
      name: 'keyframe_encoder_deadline_misses_total',
      help: "Encodes that finished after their viewer's buffer ran out.",
      registers,
    }),
    // Job names seen in the queue before, so a name with nothing queued any more reads 0, not absent.
    queuedJobNames: new Set<string>(),
  };
  // Series with a fixed set of labels start at 0, so a rate over them is defined from the first scrape.
  for (const result of ['hit', 'miss']) set.segmentCacheRequests.inc({ result }, 0);
  for (const result of ['delivered', 'retry', 'failed']) set.webhookDeliveries.inc({ result }, 0);
  return set;
};

export type MetricSet = ReturnType<typeof createMetricSet>;

declare module '../runtime/node-runtime' {
  interface NodeRuntime {
    metrics: MetricSet;
  }
}

export const metricSet = (): MetricSet => nodeRuntime().metrics;
