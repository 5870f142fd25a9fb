import { describe, expect, test } from 'vitest';
import { takeToken } from './token-bucket';

describe('takeToken', () => {
  const rate = { perSecond: 1, burst: 3 };

  test('allows a burst, then one request per second', () => {
    const buckets = new Map();
    const t0 = 1_000_000;
    expect(takeToken(buckets, 'k', rate, t0).allowed).toBe(true);
    expect(takeToken(buckets, 'k', rate, t0).allowed).toBe(true);
    expect(takeToken(buckets, 'k', rate, t0).allowed).toBe(true);
    const denied = takeToken(buckets, 'k', rate, t0);
    expect(denied).toEqual({ allowed: false, retryAfterMs: 1000 });
    expect(takeToken(buckets, 'k', rate, t0 + 500).allowed).toBe(false);
    expect(takeToken(buckets, 'k', rate, t0 + 1000).allowed).toBe(true);
    expect(takeToken(buckets, 'k', rate, t0 + 1000).allowed).toBe(false);
  });

  test('keys are independent', () => {
    const buckets = new Map();
    for (let i = 0; i < 3; i++) takeToken(buckets, 'a', rate, 0);
    expect(takeToken(buckets, 'a', rate, 0).allowed).toBe(false);
    expect(takeToken(buckets, 'b', rate, 0).allowed).toBe(true);
  });
});
