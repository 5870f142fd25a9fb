import { createHash } from 'node:crypto';
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { abortError, type ProduceOnce } from './segment-lock';

// "Produce this once" for nodes that share PostgreSQL but no Redis: a session-level advisory lock
// per key, held by the connection of the node producing. A node that dies drops its connections and
// PostgreSQL releases its locks with them, so a waiter takes over without waiting out a lease.
// Without pub/sub the waiters poll: whether the result is stored, and whether the lock is free.

export type PostgresProduceOnceOptions = {
  connectionString: string;
  /** How often a waiting node looks again. */
  pollMs?: number;
  /** Connections held at once for productions in flight (one each) and checks. */
  maxConnections?: number;
};

// Advisory locks take two int4 keys; a hash of the name spreads the names over them.
export const lockKeys = (key: string): [number, number] => {
  const digest = createHash('sha256').update(`keyframe:produce-once:${key}`).digest();
  return [digest.readInt32BE(0), digest.readInt32BE(4)];
};

// Until the next look, or until the caller gives up (the loops then see the signal aborted).
const pause = (ms: number, signal?: AbortSignal) => sleep(ms, undefined, { signal }).catch(() => undefined);

export const produceOnceOnPostgres = ({ connectionString, pollMs = 200, maxConnections = 16 }: PostgresProduceOnceOptions): ProduceOnce & { close: () => Promise<void> } => {
  const pool = new pg.Pool({ connectionString, max: maxConnections, idleTimeoutMillis: 10_000, allowExitOnIdle: true });
  // A connection lost while idle in the pool is replaced on the next checkout.
  pool.on('error', () => undefined);

  const listened = new WeakSet<pg.PoolClient>();
  /** The connection holding the lock, or null when another node holds it. */
  const tryLock = async (key: string): Promise<pg.PoolClient | null> => {
    const client = await pool.connect();
    // A connection lost while it holds a lock (the server restarted, an administrator ended it)
    // emits 'error' on the client, not the pool; the lock is gone with it, and releasing it
    // afterwards fails, which produceHoldingLock expects.
    if (!listened.has(client)) {
      listened.add(client);
      client.on('error', () => undefined);
    }
    try {
      const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS locked', lockKeys(key));
      if (rows[0]?.locked) return client;
      client.release();
      return null;
    } catch (error) {
      client.release(error instanceof Error ? error : true);
      throw error;
    }
  };

  const produceHoldingLock = async (client: pg.PoolClient, key: string, produce: () => Promise<void>) => {
    try {
      await produce();
    } finally {
      try {
        await client.query('SELECT pg_advisory_unlock($1, $2)', lockKeys(key));
        client.release();
      } catch (error) {
        // The connection is gone, and the lock with it.
        client.release(error instanceof Error ? error : true);
      }
    }
  };

  // Whether another node produces `key` now: its lock cannot be taken (and is given back at once if it can).
  const heldElsewhere = async (key: string): Promise<boolean> => {
    const client = await tryLock(key);
    if (!client) return true;
    await produceHoldingLock(client, key, async () => undefined);
    return false;
  };

  return {
    waitForOtherNode: async (key, { isAvailable, signal }) => {
      if (!(await heldElsewhere(key))) return false;
      while (!signal?.aborted && !(await isAvailable()) && (await heldElsewhere(key))) await pause(pollMs, signal);
      return true;
    },
    tryRun: async (key, { isAvailable, produce }) => {
      if (await isAvailable()) return 'available';
      const client = await tryLock(key);
      if (!client) return 'busy';
      await produceHoldingLock(client, key, produce);
      return 'produced';
    },
    run: async (key, { isAvailable, produce, signal }) => {
      for (;;) {
        if (signal?.aborted) throw abortError(signal);
        if (await isAvailable()) return;
        const client = await tryLock(key);
        if (client) {
          // Unless the holder before stored it between the look above and the lock.
          await produceHoldingLock(client, key, async () => {
            if (!(await isAvailable())) await produce();
          });
          return;
        }
        await pause(pollMs, signal);
      }
    },
    close: () => pool.end(),
  };
};
