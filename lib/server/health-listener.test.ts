import type { AddressInfo } from 'node:net';
import type http from 'node:http';
import { afterEach, expect, test } from 'vitest';
import { startHealthListener } from './health-listener';
import { serverState } from '../runtime/server-state';

let server: http.Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
  serverState().migrationsApplied = false;
});

const urlOf = (listening: http.Server, pathname: string) => `http://127.0.0.1:${(listening.address() as AddressInfo).port}${pathname}`;

test('a worker node answers the health check, with the Next.js route\'s body, and nothing else', async () => {
  server = await startHealthListener({ port: 0, host: '127.0.0.1' });

  const before = await fetch(urlOf(server, '/api/health'));
  expect(before.status).toBe(503);
  expect(await before.json()).toMatchObject({
    status: 'unavailable',
    checks: { database: { ok: false, reason: 'database migrations have not been applied yet' } },
  });

  const other = await fetch(urlOf(server, '/video/v1/assets'));
  expect(other.status).toBe(404);
  expect(await other.text()).toMatch(/KEYFRAME_ROLE=worker/);
  expect((await fetch(urlOf(server, '/api/health'), { method: 'POST' })).status).toBe(404);
});
