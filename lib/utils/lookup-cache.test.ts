import { describe, expect, test } from 'vitest';
import { LookupCache } from './lookup-cache';

const deferred = <T>() => {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
};

describe('LookupCache', () => {
  test('loads once, then answers from memory', async () => {
    const cache = new LookupCache<{ n: number }>({ maxEntries: 10, ttlMs: 60_000 });
    let loads = 0;
    const load = async () => ({ n: ++loads });
    expect(await cache.get('a', load)).toEqual({ n: 1 });
    expect(await cache.get('a', load)).toEqual({ n: 1 });
    expect(loads).toBe(1);
  });

  test('does not keep null or values `keep` refuses', async () => {
    const cache = new LookupCache<{ ready: boolean }>({ maxEntries: 10, ttlMs: 60_000 });
    let loads = 0;
    await cache.get('missing', async () => (loads++, null));
    await cache.get('missing', async () => (loads++, null));
    await cache.get('preparing', async () => (loads++, { ready: false }), (value) => value.ready);
    await cache.get('preparing', async () => (loads++, { ready: false }), (value) => value.ready);
    expect(loads).toBe(4);
  });

  test('forget and forgetWhere drop entries at once', async () => {
    const cache = new LookupCache<{ group: string }>({ maxEntries: 10, ttlMs: 60_000 });
    await cache.get('a', async () => ({ group: 'x' }));
    await cache.get('b', async () => ({ group: 'x' }));
    await cache.get('c', async () => ({ group: 'y' }));
    cache.forgetWhere((value) => value.group === 'x');
    expect(cache.size).toBe(1);
    cache.forget('c');
    expect(cache.size).toBe(0);
  });

  test('a load that straddles a forget does not put its stale answer back', async () => {
    const cache = new LookupCache<{ version: number }>({ maxEntries: 10, ttlMs: 60_000 });
    const slow = deferred<{ version: number }>();
    const pending = cache.get('a', () => slow.promise);
    cache.forget('a'); // the row changed while the first lookup was reading it
    slow.resolve({ version: 1 });
    expect(await pending).toEqual({ version: 1 });
    expect(await cache.get('a', async () => ({ version: 2 }))).toEqual({ version: 2 });
  });

  test('entries expire after the TTL', async () => {
    const cache = new LookupCache<{ n: number }>({ maxEntries: 10, ttlMs: 20 });
    let loads = 0;
    await cache.get('a', async () => ({ n: ++loads }));
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(await cache.get('a', async () => ({ n: ++loads }))).toEqual({ n: 2 });
  });
});
