import { existsSync } from 'node:fs';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import { findPostgresBinaries, startPrivatePostgres, type PrivatePostgres } from './private-postgres';
import { findRedisServer, startPrivateRedis, type PrivateRedis } from './private-redis';
import { descendantPids } from './processes';

// The servers the chaos test restarts under load: that what a crash loses and keeps is what the
// chaos test assumes, and that nothing outlives dispose().

const unavailableReason = (find: () => string): string | undefined => {
  try {
    find();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
};

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const postgresMissing = unavailableReason(findPostgresBinaries);
const redisMissing = unavailableReason(findRedisServer);
if (postgresMissing) console.warn(`Skipping the private PostgreSQL tests: ${postgresMissing}`);
if (redisMissing) console.warn(`Skipping the private Redis tests: ${redisMissing}`);

describe.skipIf(postgresMissing)('private PostgreSQL', () => {
  let postgres: PrivatePostgres | undefined;
  afterAll(() => postgres?.dispose());

  const connect = async (url: string) => {
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => {}); // the server is killed under it on purpose
    await client.connect();
    return client;
  };

  test('a committed row survives a crash and a fast shutdown', async () => {
    postgres = await startPrivatePostgres({ label: 'crash test PostgreSQL' });
    const url = await postgres.createDatabase('crash_test');
    const client = await connect(url);
    await client.query('CREATE TABLE survivors (name text)');
    await client.query("INSERT INTO survivors VALUES ('committed')");

    await postgres.kill();
    expect(postgres.running).toBe(false);
    await expect(client.query('SELECT 1')).rejects.toThrow();
    await expect(connect(url)).rejects.toThrow();

    await postgres.start();
    const afterCrash = await connect(url);
    expect((await afterCrash.query('SELECT name FROM survivors')).rows).toEqual([{ name: 'committed' }]);
    await afterCrash.end();

    await postgres.stop();
    await postgres.start();
    const afterStop = await connect(url);
    expect((await afterStop.query('SELECT name FROM survivors')).rows).toEqual([{ name: 'committed' }]);
    await afterStop.end();
  });

  test('dispose removes the directory and leaves no process', async () => {
    if (!postgres) throw new Error('the first test did not start the server');
    const pid = postgres.pid!;
    const processes = [pid, ...descendantPids(pid)];
    expect(processes.length).toBeGreaterThan(1); // the postmaster's checkpointer, walwriter, …
    await postgres.dispose();
    expect(existsSync(postgres.dir)).toBe(false);
    expect(processes.filter(isAlive)).toEqual([]);
  });
});

describe.skipIf(redisMissing)('private Redis', () => {
  let redis: PrivateRedis | undefined;
  let client: Redis | undefined;
  afterAll(async () => {
    client?.disconnect();
    await redis?.dispose();
  });

  test('a kill loses the data; a kill after a snapshot keeps it', async () => {
    redis = await startPrivateRedis({ label: 'crash test Redis' });
    // Reconnects on its own after each restart, as the application's clients do.
    client = new Redis(redis.url, { maxRetriesPerRequest: 1, retryStrategy: () => 50 });
    client.on('error', () => {});

    await client.set('key', 'before kill');
    await redis.kill();
    expect(redis.running).toBe(false);
    await redis.start();
    expect(await client.get('key')).toBeNull();

    await client.set('key', 'before snapshot');
    await redis.killAfterSnapshot();
    await redis.start();
    expect(await client.get('key')).toBe('before snapshot');

    // The snapshot belongs to that one restart: a plain kill afterwards starts empty again.
    await redis.kill();
    await redis.start();
    expect(await client.get('key')).toBeNull();
  });

  test('dispose removes the directory and leaves no process', async () => {
    if (!redis) throw new Error('the first test did not start the server');
    const pid = redis.pid!;
    await redis.dispose();
    expect(existsSync(redis.dir)).toBe(false);
    expect(isAlive(pid)).toBe(false);
  });
});
