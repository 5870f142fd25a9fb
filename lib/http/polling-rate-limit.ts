import { getEnv } from '../env';
import { ApiError } from './api-error';
import { takeRateLimitToken } from './rate-limit';

// Mux limits how often one asset may be polled; a withApi guard keyed per (token, resource).
export const limitPolling =
  <A>(keyOf: (args: A) => string) =>
  async (args: A): Promise<void> => {
    const decision = await takeRateLimitToken('asset-get', keyOf(args), getEnv().assetGetRate);
    if (decision.allowed) return;
    const retryAfterSeconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
    throw new ApiError('too_many_requests', 'Too many requests, retry later.', {
      'retry-after': String(retryAfterSeconds),
      'retry-after-ms': String(decision.retryAfterMs),
    });
  };
