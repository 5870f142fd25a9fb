import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { RedisConfig } from '../env';

// The Redis tests use: the server CI provides at 127.0.0.1:6379, shared with other test runs, so
// each run gets a key prefix of its own and deletes its keys afterwards. On a machine without that
// server the Redis tests skip, saying why.

export const TEST_REDIS_URL = 'redis://127.0.0.1:6379';

/** Why the Redis at `url` cannot be used, or null when it answers a PING (3 s to connect). */
export const redisUnavailableAt = async (url: string): Promise<string | null> => {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 3_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
    return null;
  } catch (error) {
    return `Redis does not answer at ${url} (${error instanceof Error ? error.message : String(error)})`;
  } finally {
    client.disconnect();
  }
};

export const isTestRedisReachable = async (): Promise<boolean> => {
  const unavailable = await redisUnavailableAt(TEST_REDIS_URL);
  if (unavailable !== null) console.warn(`${unavailable}; skipping the Redis tests`);
  return unavailable === null;
};

export type TestRedis = {
  config: RedisConfig;
  client: Redis;
  /** Deletes every key under the prefix, as a Redis restarted without its data would have none. */
  forgetEverything: () => Promise<void>;
  cleanup: () => Promise<void>;
};

/** A fresh key prefix; `cleanup()` deletes every key under it and closes the client. */
export const createTestRedis = (): TestRedis => {
  const config = { url: TEST_REDIS_URL, keyPrefix: `keyframe-test-${randomBytes(6).toString('hex')}` };
  const client = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
  const forgetEverything = async () => {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${config.keyPrefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await client.del(...keys);
    } while (cursor !== '0');
  };
  return {
    config,
    client,
    forgetEverything,
    cleanup: async () => {
      await forgetEverything();
      client.disconnect();
    },
  };
};
