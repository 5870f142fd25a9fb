import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterEach, describe, expect, test } from 'vitest';
import { lockKeys, produceOnceOnPostgres } from './postgres-segment-lock';

// The cross-node "produce once" without Redis, against the real PostgreSQL at 127.0.0.1:5432. Each
// node has its own connection pool, as separate processes would; what they produce goes to a store
// they all see (standing in for shared storage).

const POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const reachable = await (async () => {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    return true;
  } catch {
    console.warn(`PostgreSQL does not answer at ${POSTGRES_URL}; skipping the advisory-lock tests`);
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
})();

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const node = () => {
  const production = produceOnceOnPostgres({ connectionString: POSTGRES_URL, pollMs: 50, maxConnections: 8 });
  cleanups.push(() => production.close());
  return production;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
// Keys of their own: advisory locks are shared by everything on the server.
const uniqueKey = () => `segment:test-${randomBytes(6).toString('hex')}/720p/3`;

describe.skipIf(!reachable)('produceOnceOnPostgres (PostgreSQL at 127.0.0.1:5432)', () => {
  test('many requesters on two nodes at once: one produces, all return once it is stored', async () => {
    const nodes = [node(), node()];
    const key = uniqueKey();
    const stored = new Set<string>();
    let productions = 0;
    const work = {
      isAvailable: async () => stored.has(key),
      produce: async () => {
        productions++;
        await sleep(300);
        stored.add(key);
      },
    };
    const results = await Promise.all(Array.from({ length: 12 }, (_, index) => nodes[index % 2]!.run(key, work).then(() => stored.has(key))));
    expect(productions).toBe(1);
    expect(results).toEqual(Array.from({ length: 12 }, () => true));
  });

  test('waitForOtherNode and tryRun: nobody producing, and another node producing', async () => {
    const [a, b] = [node(), node()];
    const key = uniqueKey();
    const stored = new Set<string>();
    const isAvailable = async () => stored.has(key);
    expect(await b.waitForOtherNode(key, { isAvailable }), 'nobody produces it').toBe(false);

    let release = () => undefined as void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const producing = a.run(key, {
      isAvailable,
      produce: async () => {
        await released;
        stored.add(key);
      },
    });
    await sleep(100);
    const never = async () => {
      stored.add('never');
    };
    expect(await b.tryRun(key, { isAvailable, produce: never })).toBe('busy');
    const waited = b.waitForOtherNode(key, { isAvailable });
    await sleep(150);
    release();
    expect(await waited).toBe(true);
    expect(stored.has(key)).toBe(true);
    await producing;
    expect(stored.has('never')).toBe(false);
    expect(await b.tryRun(key, { isAvailable, produce: async () => undefined })).toBe('available');
  });

  test("a producer whose connection dies (its node killed) loses the lock at once; a waiter takes over", async () => {
    const [a, b] = [node(), node()];
    const key = uniqueKey();
    const stored = new Set<string>();
    const isAvailable = async () => stored.has(key);
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    cleanups.push(() => admin.end());
    // Node a takes the lock and hangs, as a frozen or dying process would.
    let unfreeze = () => undefined as void;
    const frozen = a.run(key, { isAvailable, produce: () => new Promise<void>((resolve) => (unfreeze = resolve)) }).catch(() => undefined);
    cleanups.push(async () => {
      unfreeze();
      await frozen;
    });
    await sleep(100);
    // pg_locks shows the two keys as unsigned oids.
    const [high, low] = lockKeys(key).map((half) => half >>> 0);
    const { rows } = await admin.query<{ pid: number }>(
      "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1::bigint::oid AND objid = $2::bigint::oid AND objsubid = 2",
      [high, low],
    );
    expect(rows).toHaveLength(1);
    let productionsOnB = 0;
    const takingOver = b.run(key, {
      isAvailable,
      produce: async () => {
        productionsOnB++;
        stored.add(key);
      },
    });
    await sleep(150);
    expect(productionsOnB, 'b waits while a holds the lock').toBe(0);
    await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    await takingOver;
    expect(productionsOnB).toBe(1);
  });
});
