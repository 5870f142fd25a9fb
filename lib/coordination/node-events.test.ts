import { afterEach, describe, expect, test } from 'vitest';
import { startNodeEventBus, type NodeEvent, type NodeEventBus } from './node-events';
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
      const bus = await startNodeEventBus({ config: testRedis.config, commands: testRedis.client, onEvent: (event) => heard[name]!.push(event), onError: (error) => { throw error; } });
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
});
