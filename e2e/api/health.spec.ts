import type { KeyframeServer } from '../support/keyframe-server';
import { disposeKeyframe, expect, startKeyframe, test } from '../support/test';

// GET /api/health: unauthenticated readiness probe (migrations applied, ffmpeg/ffprobe usable).

const stringsIn = (value: unknown): string[] => {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
};

test.describe('health', () => {
  let servers: KeyframeServer[] = [];

  test.afterEach(async () => {
    await disposeKeyframe(...servers);
    servers = [];
  });

  test('answers 200 with status "ok" on a working server', async () => {
    const server = await startKeyframe({ label: 'health-ok' });
    servers.push(server);

    const response = await fetch(server.url('/api/health'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    const body = (await response.json()) as { status: string };
    expect(body.status).toBe('ok');
  });

  test('answers 503 naming ffmpeg when FFMPEG_PATH points nowhere', async () => {
    const server = await startKeyframe({
      label: 'health-no-ffmpeg',
      env: { FFMPEG_PATH: '/nonexistent/ffmpeg' },
      ready: 'responding',
    });
    servers.push(server);

    const response = await fetch(server.url('/api/health'));
    const text = await response.text();
    expect(response.status, text).toBe(503);
    const body = JSON.parse(text) as { status: string };
    expect(body.status).not.toBe('ok');
    // Some human-readable reason (not just a key name) must point at ffmpeg.
    const reasons = stringsIn(body).filter((value) => /ffmpeg/i.test(value));
    expect(reasons, text).not.toHaveLength(0);
  });

  test("answers 503 naming the disk when DATA_DIR's disk has less free space than HEALTH_MIN_FREE_DISK_MB", async () => {
    // More than any disk here has: the real free space is below it, as on a node whose disk filled up.
    const server = await startKeyframe({ label: 'health-disk-full', env: { HEALTH_MIN_FREE_DISK_MB: String(2 ** 40) }, ready: 'responding' });
    servers.push(server);

    const response = await fetch(server.url('/api/health'));
    const text = await response.text();
    expect(response.status, text).toBe(503);
    const body = JSON.parse(text) as { checks: { disk: { ok: boolean; freeBytes: number; reason: string } } };
    expect(body.checks.disk, text).toMatchObject({ ok: false, freeBytes: expect.any(Number), reason: expect.stringMatching(/^DATA_DIR has \d+ MiB free/) });
  });
});
