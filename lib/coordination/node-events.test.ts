import { afterEach, describe, expect, test } from 'vitest';
import type { NodeEvent, NodeEventBus } from './node-event';
import { startNodeEventBus } from './node-events';
import { createTestRedis, isTestRedisReachable, type TestRedis } from './test-redis';

const reachable = await isTestRedisReachable();

const opened: Array<NodeEventBus | TestRedis> = [];
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await ('publish' in item ? item.close() : item.cleanup());
});

const waitFor = async (condition: () => boolean, timeoutMs = 2_000) => {
  const until = Date.now() + timeoutMs;
  while (!condition() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe.skipIf(!reachable)('node events over Redis', () => {
  test('every other node of the deployment hears an event once; the sender and other deployments do not', async () => {
    const redis = createTestRedis();
    const other = createTestRedis();
    opened.push(redis, other);
    const heard: Record<string, NodeEvent[]> = { a: [], b: [], c: [], elsewhere: [] };
    const start = async (name: string, testRedis: TestRedis) => {
      const bus = await startNodeEventBus({ config: testRedis.config, commands: testRedis.client, onEvent: (event) => void heard[name]!.push(event), onError: (error) => { throw error; } });
      opened.push(bus);
      return bus;
    };
    const a = await start('a', redis);
    await start('b', redis);
    await start('c', redis);
    await start('elsewhere', other);

    await a.publish({ type: 'asset-deleted', assetId: 'asset1' });
    await waitFor(() => heard.b!.length > 0 && heard.c!.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(heard).toEqual({ a: [], b: [{ type: 'asset-deleted', assetId: 'asset1' }], c: [{ type: 'asset-deleted', assetId: 'asset1' }], elsewhere: [] });
  });

  test('publish resolves once every other node has applied the event, not when Redis delivered it', async () => {
    const redis = createTestRedis();
    opened.push(redis);
    const applied: string[] = [];
    const slow = await startNodeEventBus({
      config: redis.config,
      commands: redis.client,
      onEvent: async () => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        applied.push('slow');
      },
      onError: (error) => {
        throw error;
      },
    });
    const publisher = await startNodeEventBus({ config: redis.config, commands: redis.client, onEvent: () => undefined, onError: (error) => { throw error; } });
    opened.push(slow, publisher);
    const startedAt = Date.now();
    await publisher.publish({ type: 'signing-key-deleted', keyId: 'key1' });
    expect(applied, 'the other node had applied it when publish returned').toEqual(['slow']);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(280);
  });

  test('a node that never finishes applying delays publish by the acknowledgement timeout at most, reported through onError', async () => {
    const redis = createTestRedis();
    opened.push(redis);
    const errors: unknown[] = [];
    const stuck = await startNodeEventBus({ config: redis.config, commands: redis.client, onEvent: () => new Promise<void>(() => undefined), onError: () => undefined });
    const publisher = await startNodeEventBus({ config: redis.config, commands: redis.client, onEvent: () => undefined, onError: (error) => void errors.push(error) });
    opened.push(stuck, publisher);
    const startedAt = Date.now();
    await publisher.publish({ type: 'restriction-changed', restrictionId: 'r1' });
    const waited = Date.now() - startedAt;
    expect(waited).toBeGreaterThanOrEqual(1_900);
    expect(waited).toBeLessThan(4_000);
    expect(String(errors[0])).toMatch(/did not acknowledge restriction-changed/);
  });
});
