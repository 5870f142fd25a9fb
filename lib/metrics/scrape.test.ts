import { describe, expect, test } from 'vitest';
import { recordHttpRequest, recordIngestStep, recordJobRun, recordSegmentCacheRequest, recordSegmentEncode, recordWebhookDelivery } from './record';
import { scrapeMetrics, type ScrapeSnapshot } from './scrape';

const snapshot = (overrides: Partial<ScrapeSnapshot> = {}): ScrapeSnapshot => ({
  queuedJobs: new Map(),
  segmentCacheBytes: 0,
  encoder: { slots: 2, running: 0, queuedByKind: { onDemand: 0, prefetch: 0, audio: 0, background: 0 }, deadlineMisses: 0 },
  ...overrides,
});

const scrape = async (overrides: Partial<ScrapeSnapshot> = {}) => (await scrapeMetrics(snapshot(overrides))).body;

/** The value of one sample (`name{labels}` exactly as rendered), or undefined when it is absent. */
const sample = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe('scrapeMetrics', () => {
  test('renders valid Prometheus text: one HELP and TYPE per family, every sample well formed', async () => {
    recordHttpRequest('health', 200, 0.003);
    const { body, contentType } = await scrapeMetrics(snapshot());
    expect(contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    const families = body.split('\n').filter((line) => line.startsWith('# TYPE ')).map((line) => line.split(' ')[2]);
    expect(new Set(families).size).toBe(families.length);
    for (const line of body.split('\n')) {
      if (line === '' || line.startsWith('# HELP ') || line.startsWith('# TYPE ')) continue;
      // prom-client writes NaN as "Nan" (the event loop lag before its first sample); Prometheus reads either.
      expect(line).toMatch(/^keyframe_[a-z0-9_]+(\{[a-z_]+="[^"\n]*"(,[a-z_]+="[^"\n]*")*\})? (-?[0-9.e+-]+|\+Inf|NaN|Nan)$/);
    }
    expect(families).toEqual(
      expect.arrayContaining([
        'keyframe_process_cpu_user_seconds_total',
        'keyframe_process_resident_memory_bytes',
        'keyframe_nodejs_eventloop_lag_seconds',
        'keyframe_http_requests_total',
        'keyframe_http_request_duration_seconds',
        'keyframe_segment_encodes_total',
      ]),
    );
    expect(sample(body, 'keyframe_http_requests_total{route="health",status="200"}')).toBeGreaterThanOrEqual(1);
  });

  test('segment encodes: counted by rung, priority and result; durations of successful ones only', async () => {
    const series = 'keyframe_segment_encodes_total{rung="360p",priority="deadline",result="ok"}';
    const before = sample(await scrape(), series) ?? 0;
    recordSegmentEncode({ rung: '360p', priority: 'deadline', result: 'ok', seconds: 1.5 });
    recordSegmentEncode({ rung: '360p', priority: 'deadline', result: 'cancelled', seconds: 0.2 });
    recordSegmentEncode({ rung: '2160p', priority: 'background', result: 'error', seconds: 9 });
    const text = await scrape();
    expect(sample(text, series)).toBe(before + 1);
    expect(sample(text, 'keyframe_segment_encodes_total{rung="360p",priority="deadline",result="cancelled"}')).toBe(1);
    expect(sample(text, 'keyframe_segment_encodes_total{rung="2160p",priority="background",result="error"}')).toBe(1);
    expect(sample(text, 'keyframe_segment_encode_duration_seconds_count{rung="360p",priority="deadline"}')).toBe(before + 1);
    expect(sample(text, 'keyframe_segment_encode_duration_seconds_bucket{le="2",rung="360p",priority="deadline"}')).toBe(before + 1);
    expect(sample(text, 'keyframe_segment_encode_duration_seconds_count{rung="2160p",priority="background"}')).toBeUndefined();
  });

  test('cache requests and webhook deliveries start at 0 and count up', async () => {
    const first = await scrape();
    const hits = sample(first, 'keyframe_segment_cache_requests_total{result="hit"}');
    expect(hits).toBeGreaterThanOrEqual(0);
    expect(sample(first, 'keyframe_webhook_deliveries_total{result="failed"}')).toBeGreaterThanOrEqual(0);
    recordSegmentCacheRequest('hit');
    recordWebhookDelivery('retry');
    const second = await scrape();
    expect(sample(second, 'keyframe_segment_cache_requests_total{result="hit"}')).toBe((hits ?? 0) + 1);
    expect(sample(second, 'keyframe_webhook_deliveries_total{result="retry"}')).toBe((sample(first, 'keyframe_webhook_deliveries_total{result="retry"}') ?? 0) + 1);
  });

  test('jobs and ingest steps', async () => {
    recordJobRun({ name: 'ingest-asset-job', result: 'ok', seconds: 0.7 });
    recordIngestStep({ step: 'probe', seconds: 0.04 });
    const text = await scrape();
    expect(sample(text, 'keyframe_job_duration_seconds_count{name="ingest-asset-job",result="ok"}')).toBe(1);
    expect(sample(text, 'keyframe_job_duration_seconds_bucket{le="1",name="ingest-asset-job",result="ok"}')).toBe(1);
    expect(sample(text, 'keyframe_ingest_step_duration_seconds_bucket{le="0.05",step="probe"}')).toBe(1);
  });

  test('queued jobs: a name seen before reads 0 once its queue is empty; no series when they could not be counted', async () => {
    let text = await scrape({ queuedJobs: new Map([['ingest-asset-job', 3], ['encode-audio-job', 1]]) });
    expect(sample(text, 'keyframe_jobs_queued{name="ingest-asset-job"}')).toBe(3);
    expect(sample(text, 'keyframe_jobs_queued{name="encode-audio-job"}')).toBe(1);
    text = await scrape({ queuedJobs: new Map([['encode-audio-job', 2]]) });
    expect(sample(text, 'keyframe_jobs_queued{name="ingest-asset-job"}')).toBe(0);
    expect(sample(text, 'keyframe_jobs_queued{name="encode-audio-job"}')).toBe(2);
    text = await scrape({ queuedJobs: null });
    expect(text).not.toContain('keyframe_jobs_queued{');
  });

  test('encoder state and cache size are what the snapshot says at each scrape', async () => {
    let text = await scrape({
      segmentCacheBytes: 123_456,
      encoder: { slots: 4, running: 3, queuedByKind: { onDemand: 2, prefetch: 5, audio: 0, background: 1 }, deadlineMisses: 7 },
    });
    expect(sample(text, 'keyframe_segment_cache_bytes')).toBe(123_456);
    expect(sample(text, 'keyframe_encoder_slots')).toBe(4);
    expect(sample(text, 'keyframe_encoder_running')).toBe(3);
    expect(sample(text, 'keyframe_encoder_queued{kind="onDemand"}')).toBe(2);
    expect(sample(text, 'keyframe_encoder_queued{kind="prefetch"}')).toBe(5);
    expect(sample(text, 'keyframe_encoder_queued{kind="background"}')).toBe(1);
    expect(sample(text, 'keyframe_encoder_deadline_misses_total')).toBe(7);
    text = await scrape({ encoder: { slots: 4, running: 0, queuedByKind: { onDemand: 0, prefetch: 0, audio: 0, background: 0 }, deadlineMisses: 9 } });
    expect(sample(text, 'keyframe_encoder_queued{kind="onDemand"}')).toBe(0);
    expect(sample(text, 'keyframe_encoder_deadline_misses_total')).toBe(9);
  });
});
