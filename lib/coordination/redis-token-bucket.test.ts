import { afterEach, describe, expect, test } from 'vitest';
import { createRedisClient } from './redis-client';
import { takeRedisToken } from './redis-token-bucket';
import { createTestRedis, isTestRedisReachable, type TestRedis } from './test-redis';

// The shared token bucket against the real Redis at 127.0.0.1:6379: the in-memory bucket's
// semantics (lib/utils/token-bucket.test.ts), now held once for every node.

const redisReachable = await isTestRedisReachable();

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const setUp = (): TestRedis => {
  const redis = createTestRedis();
  cleanups.push(redis.cleanup);
  return redis;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!redisReachable)('takeRedisToken (Redis at 127.0.0.1:6379)', () => {
  const rate = { perSecond: 2, burst: 3 };

  test('allows a burst, then refills at the rate, telling how long to wait', async () => {
    const { config, client } = setUp();
    const key = `${config.keyPrefix}:rate:asset-get:token-1`;
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await takeRedisToken(client, key, rate));
    expect(decisions.slice(0, 3)).toEqual([{ allowed: true }, { allowed: true }, { allowed: true }]);
    const denied = decisions[3];
    expect(denied?.allowed).toBe(false);
    // One token takes 500 ms at 2 per second; a few ms went by since the burst.
    expect(denied && !denied.allowed && denied.retryAfterMs).toBeGreaterThan(400);
    expect(denied && !denied.allowed && denied.retryAfterMs).toBeLessThanOrEqual(500);

    await sleep(550);
    expect(await takeRedisToken(client, key, rate)).toEqual({ allowed: true });
    expect((await takeRedisToken(client, key, rate)).allowed).toBe(false);
    // Kept only until the bucket would be full again.
    const ttl = await client.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual((rate.burst / rate.perSecond) * 1000 + 1_000);
  });

  test('two nodes hammering one key at once share one bucket; other keys are untouched', async () => {
    const { config } = setUp();
    const nodeA = createRedisClient(config, 'test-node-a');
    const nodeB = createRedisClient(config, 'test-node-b');
    cleanups.push(() => nodeA.disconnect(), () => nodeB.disconnect());
    const key = `${config.keyPrefix}:rate:asset-get:shared`;
    const slow = { perSecond: 0.01, burst: 5 };

    const decisions = await Promise.all(Array.from({ length: 40 }, (_, index) => takeRedisToken(index % 2 ? nodeA : nodeB, key, slow)));
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(5);
    expect(await takeRedisToken(nodeA, `${config.keyPrefix}:rate:asset-get:other`, slow)).toEqual({ allowed: true });
  });
});
