import { Redis } from 'ioredis';
import { getEnv, type RedisConfig } from '../env';
import { getLogger } from '../log';
import { nodeRuntime } from '../runtime/node-runtime';

// Connections to the Redis that REDIS_URL names. Commands wait for a reconnect instead of failing
// after a few retries (`maxRetriesPerRequest: null`): BullMQ requires it for its workers, and a
// Redis restart should slow requests down, not fail them.

export const createRedisClient = (config: RedisConfig, name: string): Redis => {
  const client = new Redis(config.url, { maxRetriesPerRequest: null, connectionName: `keyframe-${name}` });
  // Without a listener ioredis prints every reconnect attempt's error to the console.
  client.on('error', (error: unknown) => getLogger().warn({ err: error, connection: name }, 'redis connection error'));
  return client;
};

declare module '../runtime/node-runtime' {
  interface NodeRuntime {
    /** Connected on first use, so a node without REDIS_URL never asks for it. */
    redis: Redis;
  }
}

export const createSharedRedis = (): Redis => {
  const config = getEnv().redis;
  if (!config) throw new Error('REDIS_URL is not set');
  return createRedisClient(config, 'commands');
};

/** The node's shared command connection (rate limits, locks); not for blocking commands. */
export const sharedRedis = (): Redis => nodeRuntime().redis;

/** Keys and channels of this deployment: `<REDIS_KEY_PREFIX>:<name>`. */
export const redisKey = (config: RedisConfig, ...parts: string[]): string => [config.keyPrefix, ...parts].join(':');
