import { Api } from '../support/api';
import { isCluster, type KeyframeServer } from '../support/keyframe-server';
import { parseMetrics, total, type Sample } from '../support/metrics';
import { createPlayableAsset, expect, loadMultivariant, multivariantUrl, test } from '../support/playback';
import { disposeKeyframe, startKeyframe } from '../support/test';

// GET /metrics on a real server: what one cold segment requested twice does to the counters (one
// encode, one miss, one hit, two segment requests), and who may read them. The server is this
// spec's own, without prefetching or idle filling, so no encode but the one asked for can happen
// on the rung measured; the assertions are on differences between two scrapes all the same.

const METRICS_TOKEN = 'e2e-metrics-token-0123456789';

const scrape = async (server: KeyframeServer, authorization?: string): Promise<Sample[]> => {
  const response = await fetch(server.url('/metrics'), { headers: authorization ? { authorization } : {} });
  const text = await response.text();
  expect(response.status, text.slice(0, 300)).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parseMetrics(text);
};

test.describe('with METRICS_TOKEN', () => {
  let server: KeyframeServer;
  let api: Api;
  const bearer = `Bearer ${METRICS_TOKEN}`;

  test.beforeAll(async () => {
    server = await startKeyframe({
      label: 'metrics',
      env: { METRICS_TOKEN, PREFETCH_SEGMENTS: '0', FILL_IDLE_ENCODERS: 'false' },
    });
    api = new Api(server.baseUrl, await server.createToken());
  });
  test.afterAll(async () => disposeKeyframe(server));

  test('a cold segment requested twice: one encode of its rung, one miss then one hit, two segment requests', async ({ fixtures, playbackMedia }) => {
    test.skip(isCluster(), 'counts one process\'s requests and encodes; behind the balancer they spread over two nodes (e2e/api/cluster.spec.ts sums them)');
    const { playbackId } = await createPlayableAsset(api, playbackMedia.fileUrl(fixtures.file('video720p')));
    const multivariant = await loadMultivariant(multivariantUrl(server, playbackId));
    const rung = multivariant.video[0]?.name;
    expect(rung, multivariant.text).toBeTruthy();
    const segmentUrl = server.url(`/${playbackId}/${rung}/0.m4s`);

    const before = await scrape(server, bearer);
    for (let request = 0; request < 2; request++) {
      const response = await fetch(segmentUrl);
      expect(response.status, `request ${request + 1} of ${segmentUrl}`).toBe(200);
      expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
    // Requests the playback workers answered reach the app's counters within about a second
    // (hits every 50 ms, request tallies every second: see docs/delivery.md).
    let after = await scrape(server, bearer);
    let scrapesAfterBefore = 1;
    const delta = (name: string, labels: Record<string, string> = {}) => total(after, name, labels) - total(before, name, labels);
    const settled = () => delta('keyframe_http_requests_total', { route: 'playback_segment', status: '200' }) >= 2 && delta('keyframe_segment_cache_requests_total', { result: 'hit' }) >= 1;
    for (const deadline = Date.now() + 5_000; !settled() && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await scrape(server, bearer);
      scrapesAfterBefore++;
    }

    expect(delta('keyframe_segment_encodes_total', { rung: rung! }), 'encodes of the rung, whatever their priority or result').toBe(1);
    expect(delta('keyframe_segment_encodes_total', { rung: rung!, priority: 'deadline', result: 'ok' })).toBe(1);
    expect(delta('keyframe_segment_encode_duration_seconds_count', { rung: rung!, priority: 'deadline' })).toBe(1);
    expect(delta('keyframe_segment_cache_requests_total', { result: 'miss' })).toBe(1);
    expect(delta('keyframe_segment_cache_requests_total', { result: 'hit' })).toBe(1);
    expect(delta('keyframe_http_requests_total', { route: 'playback_segment', status: '200' })).toBe(2);
    expect(delta('keyframe_http_request_duration_seconds_count', { route: 'playback_segment' })).toBe(2);
    // A scrape counts once it has been answered: the last one sees `before` and every scrape between.
    expect(delta('keyframe_http_requests_total', { route: 'metrics', status: '200' })).toBe(scrapesAfterBefore);
    expect(total(after, 'keyframe_http_requests_total', { route: 'playback_playlist', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(total(after, 'keyframe_http_requests_total', { route: 'api', status: '201' }), 'the asset creation').toBe(1);
    expect(total(after, 'keyframe_segment_cache_bytes')).toBeGreaterThan(0);
    expect(total(after, 'keyframe_encoder_slots')).toBeGreaterThanOrEqual(1);
    expect(total(after, 'keyframe_process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(total(after, 'keyframe_job_duration_seconds_count', { name: 'ingest-asset-job', result: 'ok' })).toBe(1);
    expect(total(after, 'keyframe_ingest_step_duration_seconds_count', { step: 'total' })).toBe(1);
  });

  test('a wrong token, another scheme or none at all: 401, also from loopback', async () => {
    for (const authorization of ['Bearer e2e-wrong-token-0123456789', `Basic ${btoa(`metrics:${METRICS_TOKEN}`)}`, undefined]) {
      const response = await fetch(server.url('/metrics'), { headers: authorization ? { authorization } : {} });
      expect(response.status, authorization ?? 'no Authorization header').toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="keyframe-metrics"');
      expect(await response.text()).not.toContain('keyframe_');
    }
  });
});

test.describe('without METRICS_TOKEN', () => {
  let server: KeyframeServer;
  test.beforeAll(async () => {
    server = await startKeyframe({ label: 'metrics-loopback' });
  });
  test.afterAll(async () => disposeKeyframe(server));

  test('a client on this machine reads /metrics with no credentials (the default configuration)', async () => {
    await fetch(server.url('/api/health'));
    const samples = await scrape(server);
    expect(total(samples, 'keyframe_http_requests_total', { route: 'health', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(total(samples, 'keyframe_process_cpu_user_seconds_total')).toBeGreaterThan(0);
  });
});
