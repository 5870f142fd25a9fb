import { sharedRedis, redisKey } from '../coordination/redis-client';
import { takeRedisToken } from '../coordination/redis-token-bucket';
import { getEnv } from '../env';
import { getLogger } from '../log';
import { nodeRuntime } from '../runtime/node-runtime';
import { entryOf } from '../utils/map-entry';
import { takeToken, type Bucket, type Rate, type RateLimitDecision } from '../utils/token-bucket';

// Rate limits by name and key. One process keeps its buckets in memory, which is exact for it;
// with REDIS_URL every node shares buckets in Redis, so N nodes allow what one would.

declare module '../runtime/node-runtime' {
  interface NodeRuntime {
    /** The in-memory buckets of each limit, by limit name and then key. */
    rateLimits: Map<string, Map<string, Bucket>>;
  }
}

export const createRateLimits = (): Map<string, Map<string, Bucket>> => new Map();

export const rateLimitBuckets = (name: string): Map<string, Bucket> => entryOf(nodeRuntime().rateLimits, name, () => new Map<string, Bucket>());

// A rate limit is not worth an outage: when Redis does not answer in time the request is let
// through, and the lapse is logged.
const REDIS_ANSWER_TIMEOUT_MS = 250;

const takeSharedToken = async (name: string, key: string, rate: Rate): Promise<RateLimitDecision> => {
  const config = getEnv().redis;
  if (!config) throw new Error('REDIS_URL is not set');
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${REDIS_ANSWER_TIMEOUT_MS} ms`)), REDIS_ANSWER_TIMEOUT_MS);
  });
  try {
    return await Promise.race([takeRedisToken(sharedRedis(), redisKey(config, 'rate', name, key), rate), timeout]);
  } catch (error) {
    getLogger().warn({ err: error, limit: name }, 'rate limit unavailable; request allowed');
    return { allowed: true };
  } finally {
    clearTimeout(timer);
  }
};

/** Takes a token from the bucket `key` of the limit `name`: in Redis when configured, else in memory. */
export const takeRateLimitToken = (name: string, key: string, rate: Rate): Promise<RateLimitDecision> =>
  getEnv().redis ? takeSharedToken(name, key, rate) : Promise.resolve(takeToken(rateLimitBuckets(name), key, rate));
