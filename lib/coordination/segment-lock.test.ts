import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { createRedisClient } from './redis-client';
import { produceOnceAcrossNodes, type ProduceOnce } from './segment-lock';
import { createTestRedis, isTestRedisReachable, type TestRedis } from './test-redis';

// The cross-node "produce once" against the real Redis at 127.0.0.1:6379. Each node has its own
// two connections, as separate processes would; what they produce goes to a store they all see
// (standing in for shared storage).

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

const node = (redis: TestRedis, lockMs?: number): ProduceOnce => {
  const commands = createRedisClient(redis.config, 'test-commands');
  const subscriber = createRedisClient(redis.config, 'test-subscriber');
  cleanups.push(() => commands.disconnect(), () => subscriber.disconnect());
  return produceOnceAcrossNodes({ config: redis.config, commands, subscriber, lockMs });
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!redisReachable)('produceOnceAcrossNodes (Redis at 127.0.0.1:6379)', () => {
  test('many requesters on two nodes at once: one produces, all return once it is stored', async () => {
    const redis = setUp();
    const nodes = [node(redis), node(redis)];
    const stored = new Set<string>();
    let productions = 0;
    const work = {
      isAvailable: async () => stored.has('seg'),
      produce: async () => {
        productions++;
        await sleep(300);
        stored.add('seg');
      },
    };

    const results = await Promise.all(
      Array.from({ length: 12 }, (_, index) => nodes[index % 2]!.run('asset/720p/3', work).then(() => stored.has('seg'))),
    );
    expect(productions).toBe(1);
    expect(results).toEqual(Array.from({ length: 12 }, () => true));
    expect(await redis.client.exists(`${redis.config.keyPrefix}:lock:asset/720p/3`)).toBe(0);
  });

  test('waitForOtherNode: false at once when nobody produces; otherwise returns when the producer is done', async () => {
    const redis = setUp();
    const [a, b] = [node(redis), node(redis)];
    const stored = new Set<string>();
    const isAvailable = async () => stored.has('seg');
    expect(await b.waitForOtherNode('asset/540p/1', { isAvailable })).toBe(false);

    const producing = a.run('asset/540p/1', {
      isAvailable,
      produce: async () => {
        await sleep(400);
        stored.add('seg');
      },
    });
    await sleep(50);
    const startedAt = Date.now();
    expect(await b.waitForOtherNode('asset/540p/1', { isAvailable })).toBe(true);
    expect(stored.has('seg'), 'returned after the producer stored it').toBe(true);
    expect(Date.now() - startedAt).toBeGreaterThan(200);
    await producing;

    const aborted = new AbortController();
    const held = a.run('asset/540p/2', { isAvailable: async () => false, produce: async () => void (await sleep(2_000)) });
    await sleep(50);
    setTimeout(() => aborted.abort(), 100);
    const waitStarted = Date.now();
    expect(await b.waitForOtherNode('asset/540p/2', { isAvailable: async () => false, signal: aborted.signal })).toBe(true);
    expect(Date.now() - waitStarted, 'an abort ends the wait').toBeLessThan(1_000);
    await held;
  });

  test('when the producer fails, a waiter on the other node takes over at once', async () => {
    const redis = setUp();
    const [a, b] = [node(redis), node(redis)];
    const stored = new Set<string>();
    const attempts: string[] = [];
    const producer = (name: string, fail: boolean) => ({
      isAvailable: async () => stored.has('seg'),
      produce: async () => {
        attempts.push(name);
        await sleep(200);
        if (fail) throw new Error('ffmpeg failed');
        stored.add('seg');
      },
    });

    const first = a.run('seg', producer('a', true));
    await sleep(50);
    const startedWaiting = Date.now();
    const second = b.run('seg', producer('b', false));
    await expect(first).rejects.toThrow('ffmpeg failed');
    await second;
    expect(attempts).toEqual(['a', 'b']);
    // Woken by the release, not by the 10 s lock running out.
    expect(Date.now() - startedWaiting).toBeLessThan(2_000);
  });

  test('a holder killed with SIGKILL mid-production: a waiter produces once its lock runs out', { timeout: 20_000 }, async () => {
    const redis = setUp();
    const lockMs = 1_000;
    const fixture = path.join(import.meta.dirname, 'segment-lock-holder.fixture.ts');
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, redis.config.url, redis.config.keyPrefix, 'seg', String(lockMs)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    cleanups.push(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    await new Promise<void>((resolve) => child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('producing') && resolve()));

    const survivor = node(redis, lockMs);
    let produced = 0;
    const waiting = survivor.run('seg', {
      isAvailable: async () => produced > 0,
      produce: async () => {
        produced++;
      },
    });
    // The holder is alive and renewing: nobody else produces, however long it takes.
    await sleep(lockMs * 2);
    expect(produced).toBe(0);

    child.kill('SIGKILL');
    const killedAt = Date.now();
    await waiting;
    expect(produced).toBe(1);
    expect(Date.now() - killedAt).toBeLessThan(lockMs + 1_000);
  });

  test('a waiter whose request is aborted stops waiting', async () => {
    const redis = setUp();
    const [a, b] = [node(redis), node(redis)];
    let finish = () => undefined as void;
    const holder = a.run('seg', { isAvailable: async () => false, produce: () => new Promise<void>((resolve) => (finish = resolve)) });
    await sleep(50);
    const controller = new AbortController();
    const waiter = b.run('seg', { isAvailable: async () => false, produce: async () => undefined, signal: controller.signal });
    await sleep(100);
    controller.abort(new Error('the viewer went away'));
    await expect(waiter).rejects.toThrow('the viewer went away');
    finish();
    await holder;
  });

  test('tryRun produces when nobody holds the lock, and answers busy at once when another node does', async () => {
    const redis = setUp();
    const [first, second] = [node(redis), node(redis)];
    const stored = new Set<string>();
    let release: () => void = () => undefined;
    const holding = new Promise<void>((resolve) => (release = resolve));
    const produced = first!.tryRun('asset/540p/4', {
      isAvailable: async () => stored.has('seg'),
      produce: async () => {
        await holding;
        stored.add('seg');
      },
    });
    await sleep(50);
    const startedAt = Date.now();
    expect(await second!.tryRun('asset/540p/4', { isAvailable: async () => stored.has('seg'), produce: async () => { stored.add('other'); } })).toBe('busy');
    expect(Date.now() - startedAt, 'without waiting for the holder').toBeLessThan(1_000);
    release();
    expect(await produced).toBe('produced');
    expect(await second!.tryRun('asset/540p/4', { isAvailable: async () => stored.has('seg'), produce: async () => { stored.add('other'); } })).toBe('available');
    expect([...stored]).toEqual(['seg']);
  });
});
