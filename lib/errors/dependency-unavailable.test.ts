import { mkdtempSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import { createDb } from '../db/client';
import { isTestPostgresReachable, TEST_POSTGRES_ADMIN_URL } from '../db/test-databases';
import { createS3Store } from '../storage/s3-store';
import { ApiError } from './api-error';
import { DependencyTimeoutError, unavailableApiError, unavailableDependencyOf } from './dependency-unavailable';

// Every error here is produced by the real client library against a real (or really absent) server.

const postgresReachable = await isTestPostgresReachable();
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const caught = async (run: () => Promise<unknown>): Promise<unknown> => {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
};

// A port nobody listens on: bound, then released.
const closedPort = async (): Promise<number> => {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
};

const listen = async (handler: http.RequestListener): Promise<string> => {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
};

const s3StoreAt = (endpoint: string, timeouts: { connectMs: number; idleMs: number; headMs?: number } = { connectMs: 500, idleMs: 300 }) =>
  createS3Store({
    bucket: 'media',
    endpoint,
    region: 'us-east-1',
    accessKeyId: 'key',
    secretAccessKey: 'secret',
    forcePathStyle: true,
    timeouts,
  });

describe('unavailableDependencyOf', () => {
  test('PostgreSQL not listening: Prisma P1001 is the database', async () => {
    const db = createDb({ provider: 'postgresql', url: `postgresql://postgres@127.0.0.1:${await closedPort()}/test`, schema: 'public', label: 'closed port' });
    const error = await caught(() => db.asset.findMany({ take: 1 }));
    expect(error).toMatchObject({ code: 'P1001' });
    expect(unavailableDependencyOf(error)).toBe('database');
  });

  test.skipIf(!postgresReachable)("PostgreSQL ending a session (a restart's shutdown) is the database", async () => {
    const client = new pg.Client({ connectionString: TEST_POSTGRES_ADMIN_URL });
    client.on('error', () => undefined);
    await client.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    // A query in flight when the session ends, then the next one on the same client.
    const inFlight = caught(() => client.query('SELECT pg_sleep(10)'));
    const admin = new pg.Client({ connectionString: TEST_POSTGRES_ADMIN_URL });
    await admin.connect();
    await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    await admin.end();
    const during = await inFlight;
    expect(unavailableDependencyOf(during), String(during)).toBe('database');
    const after = await caught(() => client.query('SELECT 1'));
    expect(unavailableDependencyOf(after), String(after)).toBe('database');
  });

  test('SQLite locked by another writer is the database', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'keyframe-unavailable-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'test.db');
    const holder = new Database(file);
    holder.exec('CREATE TABLE t (x INTEGER)');
    holder.exec('BEGIN EXCLUSIVE');
    const other = new Database(file, { timeout: 0 });
    let error: unknown;
    try {
      other.exec('INSERT INTO t VALUES (1)');
    } catch (failure) {
      error = failure;
    }
    holder.exec('ROLLBACK');
    holder.close();
    other.close();
    expect(error).toMatchObject({ code: 'SQLITE_BUSY' });
    expect(unavailableDependencyOf(error)).toBe('database');
  });

  test('a transaction that outlived its timeout (the node paused mid-transaction) is the database: it was rolled back, a retry is safe', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'keyframe-unavailable-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const db = createDb({ provider: 'sqlite', filePath: path.join(dir, 'test.db'), label: 'test' });
    cleanups.push(() => db.$disconnect());
    const error = await caught(() =>
      db.$transaction(
        async (tx) => {
          await new Promise((resolve) => setTimeout(resolve, 300));
          await tx.$queryRaw`SELECT 1`;
        },
        { timeout: 50 },
      ),
    );
    expect(error).toMatchObject({ code: 'P2028' });
    expect(unavailableDependencyOf(error)).toBe('database');
  });

  test('an S3 endpoint answering 503 is storage', async () => {
    const endpoint = await listen((_request, response) => {
      response.writeHead(503, { 'content-type': 'application/xml' });
      response.end('<?xml version="1.0"?><Error><Code>ServiceUnavailable</Code><Message>Please reduce your request rate.</Message></Error>');
    });
    const error = await caught(() => s3StoreAt(endpoint).stat('assets/a/source'));
    expect(unavailableDependencyOf(error), String(error)).toBe('storage');
  });

  test('an S3 endpoint that accepts and never answers is storage, after the idle timeout', async () => {
    const endpoint = await listen(() => undefined);
    const startedAt = Date.now();
    const error = await caught(() => s3StoreAt(endpoint).stat('assets/a/source'));
    expect(unavailableDependencyOf(error), String(error)).toBe('storage');
    // Three attempts of 0.3 s idle each, with the SDK's backoff between them.
    expect(Date.now() - startedAt).toBeLessThan(10_000);
  });

  test('a HEAD unanswered for its whole deadline is storage, without waiting out the idle timeouts', async () => {
    const endpoint = await listen(() => undefined);
    const store = s3StoreAt(endpoint, { connectMs: 500, idleMs: 60_000, headMs: 1_000 });
    const startedAt = Date.now();
    const error = await caught(() => store.stat('assets/a/source'));
    expect(error).toBeInstanceOf(DependencyTimeoutError);
    expect(unavailableDependencyOf(error), String(error)).toBe('storage');
    expect(Date.now() - startedAt).toBeLessThan(3_000);
  });

  test('an S3 endpoint not listening is storage', async () => {
    const store = s3StoreAt(`http://127.0.0.1:${await closedPort()}`);
    const error = await caught(() => store.stat('assets/a/source'));
    expect(unavailableDependencyOf(error), String(error)).toBe('storage');
  });

  test('a full disk is the disk', async () => {
    const error = await caught(() => writeFile('/dev/full', 'x'));
    expect(error).toMatchObject({ code: 'ENOSPC' });
    expect(unavailableDependencyOf(error)).toBe('disk');
  });

  test('a bug, a bad request and an answer already given are not an outage', async () => {
    expect(unavailableDependencyOf(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBeNull();
    expect(unavailableDependencyOf(new ApiError('service_unavailable', 'The request was abandoned'))).toBeNull();
    const db = createDb({ provider: 'sqlite', filePath: ':memory:', label: 'memory' });
    const error = await caught(() => db.asset.findMany({ take: 1 })); // no tables: not migrated
    expect(unavailableDependencyOf(error), String(error)).toBeNull();
    await db.$disconnect();
  });

  test('a dependency that did not answer in time is unavailable, also when wrapped', () => {
    const late = new DependencyTimeoutError('storage', 'the bucket did not answer within 10000 ms');
    expect(unavailableDependencyOf(late)).toBe('storage');
    expect(unavailableDependencyOf(new Error('reading the text track failed', { cause: late }))).toBe('storage');
  });

  test('looks through wrapped causes', () => {
    const cause = Object.assign(new Error('write ENOSPC'), { code: 'ENOSPC' });
    expect(unavailableDependencyOf(new Error('publishing the segment failed', { cause }))).toBe('disk');
  });
});

describe('unavailableApiError', () => {
  test('a 503 naming the dependency, with Retry-After; null for anything else', () => {
    const error = unavailableApiError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'P1001' }));
    expect(error).toMatchObject({ type: 'service_unavailable', headers: { 'retry-after': '5' } });
    expect(error?.messages).toEqual(['The database is unavailable right now; retry shortly']);
    expect(unavailableApiError(new Error('boom'))).toBeNull();
  });
});
