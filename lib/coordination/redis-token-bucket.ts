import type { Redis } from 'ioredis';
import type { Rate, RateLimitDecision } from '../utils/token-bucket';

// The token bucket of lib/utils/token-bucket.ts kept in Redis, so every node draws from the same
// bucket. One Lua script reads, refills and takes atomically, on the Redis server's clock (nodes'
// clocks may disagree). The bucket expires once it would be full again: a full bucket and a missing
// one mean the same.

const TAKE_TOKEN_SCRIPT = `
local burst = tonumber(ARGV[1])
local per_second = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local stored = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(stored[1]) or burst
local at = tonumber(stored[2]) or now
local refilled = math.min(burst, tokens + math.max(0, now - at) / 1000 * per_second)
local allowed = 0
local retry_after_ms = 0
if refilled < 1 then
  retry_after_ms = math.ceil((1 - refilled) / per_second * 1000)
else
  refilled = refilled - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(refilled), 'at', now)
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - refilled) / per_second * 1000) + 1000)
return { allowed, retry_after_ms }
`;

type ScriptedRedis = Redis & { keyframeTakeToken: (key: string, burst: number, perSecond: number) => Promise<[number, number]> };

const withScript = (redis: Redis): ScriptedRedis => {
  const scripted = redis as ScriptedRedis;
  // defineCommand sends EVALSHA and falls back to EVAL once per server, so the script's text
  // crosses the network only when Redis does not know it yet.
  if (typeof scripted.keyframeTakeToken !== 'function') redis.defineCommand('keyframeTakeToken', { numberOfKeys: 1, lua: TAKE_TOKEN_SCRIPT });
  return scripted;
};

export const takeRedisToken = async (
  redis: Redis,
  key: string,
  { perSecond, burst }: Rate,
): Promise<RateLimitDecision> => {
  const [allowed, retryAfterMs] = await withScript(redis).keyframeTakeToken(key, burst, perSecond);
  return allowed === 1 ? { allowed: true } : { allowed: false, retryAfterMs };
};
