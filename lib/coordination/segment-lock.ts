import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RedisConfig } from '../env';
import { redisKey } from './redis-client';

// "Produce this once, however many nodes ask at the same time": the node that wins the lock
// produces (and can stream to its own viewer meanwhile); the others wait for its "done" message
// and then find the result where it is stored. The lock is `SET NX PX` with a random token,
// renewed while producing and released only by its holder (compare-and-delete), so a holder that
// stalled past its lock never deletes its successor's. A holder that died stops renewing: its lock
// runs out, and a waiter takes over. If the lock were ever lost (Redis restart) two nodes might
// produce the same thing: harmless when, as for encoded segments, production is deterministic and
// storing the result idempotent.

export type ProduceOnce = {
  /**
   * Runs `produce` unless `isAvailable()` says the result exists or another node is producing it,
   * in which case it waits for that node. Resolves once the result is available (or produced here).
   */
  run: (key: string, work: { isAvailable: () => Promise<boolean>; produce: () => Promise<void>; signal?: AbortSignal }) => Promise<void>;
  /**
   * Waits while another node produces `key` (until it is done, its lock runs out, or `signal`
   * aborts), so a caller can wait without holding anything of its own, such as an encoder slot.
   * False at once when nobody produces it.
   */
  waitForOtherNode: (key: string, work: { isAvailable: () => Promise<boolean>; signal?: AbortSignal }) => Promise<boolean>;
  /**
   * Runs `produce` if nobody produces `key` now and its result is not available, without waiting
   * for anyone: 'produced' once it ran, 'busy' when another node holds the lock, 'available' when
   * the result exists. For work taken on beside other work (a rung encoded with another one).
   */
  tryRun: (key: string, work: { isAvailable: () => Promise<boolean>; produce: () => Promise<void> }) => Promise<'produced' | 'busy' | 'available'>;
};

/** Within one process the callers already share one production (see video-segments.ts). */
export const produceLocally: ProduceOnce = {
  run: async (_key, { isAvailable, produce }) => {
    if (!(await isAvailable())) await produce();
  },
  waitForOtherNode: async () => false,
  tryRun: async (_key, { isAvailable, produce }) => {
    if (await isAvailable()) return 'available';
    await produce();
    return 'produced';
  },
};

const RENEW_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

type LockCommands = Redis & {
  keyframeRenewLock: (key: string, token: string, ttlMs: number) => Promise<number>;
  keyframeReleaseLock: (key: string, token: string) => Promise<number>;
};

const withLockCommands = (redis: Redis): LockCommands => {
  const commands = redis as LockCommands;
  if (typeof commands.keyframeRenewLock !== 'function') {
    redis.defineCommand('keyframeRenewLock', { numberOfKeys: 1, lua: RENEW_SCRIPT });
    redis.defineCommand('keyframeReleaseLock', { numberOfKeys: 1, lua: RELEASE_SCRIPT });
  }
  return commands;
};

export const abortError = (signal: AbortSignal) => (signal.reason instanceof Error ? signal.reason : new Error('aborted'));

// One subscriber connection per process, each channel subscribed while someone waits on it.
const channelWaiters = (subscriber: Redis) => {
  const waiters = new Map<string, Set<() => void>>();
  subscriber.on('message', (channel: string) => {
    for (const wake of waiters.get(channel) ?? []) wake();
  });
  return {
    // Resolves once subscribed; `wake` runs on each message until `unsubscribe()`.
    subscribe: async (channel: string, wake: () => void): Promise<() => Promise<void>> => {
      let set = waiters.get(channel);
      if (!set) {
        set = new Set();
        waiters.set(channel, set);
      }
      set.add(wake);
      await subscriber.subscribe(channel);
      return async () => {
        set.delete(wake);
        if (set.size > 0 || waiters.get(channel) !== set) return;
        waiters.delete(channel);
        await subscriber.unsubscribe(channel);
      };
    },
  };
};

export type RedisProduceOnceOptions = {
  config: RedisConfig;
  /** Commands (SET, PUBLISH, scripts). */
  commands: Redis;
  /** A connection of its own: once subscribed, a Redis connection takes no other commands. */
  subscriber: Redis;
  /** How long a lock lasts without renewal: how long waiters wait for a holder that died. */
  lockMs?: number;
};

export const produceOnceAcrossNodes = ({ config, commands, subscriber, lockMs = 10_000 }: RedisProduceOnceOptions): ProduceOnce => {
  const redis = withLockCommands(commands);
  const channels = channelWaiters(subscriber);

  const produceHoldingLock = async (lockKey: string, doneChannel: string, token: string, produce: () => Promise<void>) => {
    const renewal = setInterval(() => void redis.keyframeRenewLock(lockKey, token, lockMs).catch(() => undefined), lockMs / 3);
    try {
      await produce();
    } finally {
      clearInterval(renewal);
      await redis.keyframeReleaseLock(lockKey, token);
      // Also on failure: the waiters then try to produce it themselves instead of waiting out the lock.
      await redis.publish(doneChannel, token);
    }
  };

  // Waits until the holder says it is done, its lock ran out, or `signal` aborts.
  const waitForHolder = async (lockKey: string, doneChannel: string, isAvailable: () => Promise<boolean>, signal?: AbortSignal) => {
    let wake = () => undefined as void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const unsubscribe = await channels.subscribe(doneChannel, wake);
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => wake();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      // Subscribed now: anything published from here on wakes us. What finished before is seen here.
      if (await isAvailable()) return;
      const remainingMs = await redis.pttl(lockKey);
      if (remainingMs < 0) return;
      timer = setTimeout(wake, remainingMs + 50);
      await woken;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      await unsubscribe();
    }
  };

  return {
    waitForOtherNode: async (key, { isAvailable, signal }) => {
      const lockKey = redisKey(config, 'lock', key);
      // The common case, nobody holding it, costs one round trip and no subscription.
      if ((await redis.pttl(lockKey)) < 0) return false;
      await waitForHolder(lockKey, redisKey(config, 'done', key), isAvailable, signal);
      return true;
    },
    tryRun: async (key, { isAvailable, produce }) => {
      if (await isAvailable()) return 'available';
      const lockKey = redisKey(config, 'lock', key);
      const token = randomBytes(12).toString('hex');
      if ((await redis.set(lockKey, token, 'PX', lockMs, 'NX')) !== 'OK') return 'busy';
      await produceHoldingLock(lockKey, redisKey(config, 'done', key), token, produce);
      return 'produced';
    },
    run: async (key, { isAvailable, produce, signal }) => {
      const lockKey = redisKey(config, 'lock', key);
      const doneChannel = redisKey(config, 'done', key);
      for (;;) {
        if (signal?.aborted) throw abortError(signal);
        if (await isAvailable()) return;
        const token = randomBytes(12).toString('hex');
        if ((await redis.set(lockKey, token, 'PX', lockMs, 'NX')) === 'OK') {
          await produceHoldingLock(lockKey, doneChannel, token, produce);
          return;
        }
        await waitForHolder(lockKey, doneChannel, isAvailable, signal);
      }
    },
  };
};
