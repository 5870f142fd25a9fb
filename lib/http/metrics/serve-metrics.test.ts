import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { getEnv } from '../../env';
import { enqueueJob } from '../../jobs/queue';
import { prepareDatabase } from '../../server/prepare-database';
import { serveMetrics } from './serve-metrics';

// The handler as the server runs it, on a real HTTP server and a real (SQLite) database, with
// METRICS_TOKEN configured. Every client here is on loopback, which the token must not excuse;
// the refusal of other addresses without a token is covered in lib/auth/metrics-access.test.ts.
// (The database stays open until this test process exits: lib/http does not touch lib/db.)

const TOKEN = 'metrics-handler-test-token-42';

let dataDir: string;
let server: http.Server;
let origin: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'keyframe-metrics-test-'));
  vi.stubEnv('DATA_DIR', dataDir);
  vi.stubEnv('DATABASE_URL', '');
  vi.stubEnv('METRICS_TOKEN', TOKEN);
  await prepareDatabase(getEnv());
  server = http.createServer((request, response) => serveMetrics(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  vi.unstubAllEnvs();
  rmSync(dataDir, { recursive: true, force: true });
});

const get = (headers: HeadersInit = {}, method = 'GET') => fetch(`${origin}/metrics`, { method, headers });

describe('serveMetrics with METRICS_TOKEN', () => {
  test('no credentials, a wrong token or another scheme: 401 with a Bearer challenge, no metrics', async () => {
    const refused: Record<string, string>[] = [
      {},
      { authorization: 'Bearer not-the-right-token-at-all' },
      { authorization: `Basic ${btoa(`x:${TOKEN}`)}` },
    ];
    for (const headers of refused) {
      const response = await get(headers);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="keyframe-metrics"');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(await response.text()).not.toContain('keyframe_');
    }
  });

  test('the token: the metrics, with the jobs waiting in the database counted at scrape time', async () => {
    await enqueueJob({ name: 'ingest-asset-job', payload: { assetId: 'test' }, maxAttempts: 1 });
    await enqueueJob({ name: 'ingest-asset-job', payload: { assetId: 'test-2' }, maxAttempts: 1 });
    const response = await get({ authorization: `Bearer ${TOKEN}` });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = await response.text();
    expect(body).toMatch(/^keyframe_jobs_queued\{name="ingest-asset-job"\} 2$/m);
    expect(body).toMatch(/^keyframe_encoder_slots \d+$/m);
    expect(body).toMatch(/^keyframe_segment_cache_bytes 0$/m);
    expect(body).toContain('# TYPE keyframe_process_cpu_user_seconds_total counter');
  });

  test('HEAD has the headers and no body; other methods are refused', async () => {
    const head = await get({ authorization: `Bearer ${TOKEN}` }, 'HEAD');
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
    expect(await head.text()).toBe('');
    const post = await get({ authorization: `Bearer ${TOKEN}` }, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
});
