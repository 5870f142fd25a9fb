import { Redis } from 'ioredis';
import { getEnv, type RedisConfig } from '../env';
import { getLogger } from '../log';
import { processSingleton } from '../utils/process-singleton';

// Connections to the Redis that REDIS_URL names. Commands wait for a reconnect instead of failing
// after a few retries (`maxRetriesPerRequest: null`): BullMQ requires it for its workers, and a
// Redis restart should slow requests down, not fail them.

export const createRedisClient = (config: RedisConfig, name: string): Redis => {
  const client = new Redis(config.url, { maxRetriesPerRequest: null, connectionName: `keyframe-${name}` });
  // Without a listener ioredis prints every reconnect attempt's error to the console.
  client.on('error', (error: unknown) => getLogger().warn({ err: error, connection: name }, 'redis connection error'));
  return client;
};

/** The process's shared command connection (rate limits, locks); not for blocking commands. */
export const sharedRedis = (): Redis =>
  processSingleton('redis-client', () => {
    const config = getEnv().redis;
    if (!config) throw new Error('REDIS_URL is not set');
    return createRedisClient(config, 'commands');
  });

/** Keys and channels of this deployment: `<REDIS_KEY_PREFIX>:<name>`. */
export const redisKey = (config: RedisConfig, ...parts: string[]): string => [config.keyPrefix, ...parts].join(':');
