// A token bucket per key: `burst` requests at once, then `perSecond` on average. The in-memory form
// is exact for one process; lib/coordination/redis-token-bucket.ts is the same bucket shared by
// every node.

export type Bucket = { tokens: number; updatedAt: number };

export type RateLimitDecision = { allowed: true } | { allowed: false; retryAfterMs: number };

export type Rate = { perSecond: number; burst: number };

export const takeToken = (buckets: Map<string, Bucket>, key: string, { perSecond, burst }: Rate, now = Date.now()): RateLimitDecision => {
  const bucket = buckets.get(key) ?? { tokens: burst, updatedAt: now };
  const refilled = Math.min(burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * perSecond);
  if (refilled < 1) {
    buckets.set(key, { tokens: refilled, updatedAt: now });
    return { allowed: false, retryAfterMs: Math.ceil(((1 - refilled) / perSecond) * 1000) };
  }
  buckets.set(key, { tokens: refilled - 1, updatedAt: now });
  if (buckets.size > 50_000) pruneFullBuckets(buckets, { perSecond, burst }, now);
  return { allowed: true };
};

const pruneFullBuckets = (buckets: Map<string, Bucket>, rate: Rate, now: number) => {
  for (const [key, bucket] of buckets) {
    if (bucket.tokens + ((now - bucket.updatedAt) / 1000) * rate.perSecond >= rate.burst) buckets.delete(key);
  }
};
