import { describe, expect, test } from 'vitest';
import { KeyedLock } from './keyed-lock';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('KeyedLock', () => {
  test('serialises work on one key in arrival order, even when it fails', async () => {
    const lock = new KeyedLock();
    const events: string[] = [];
    const slow = lock.run('a', async () => {
      events.push('first:start');
      await sleep(30);
      events.push('first:end');
      throw new Error('boom');
    });
    const fast = lock.run('a', async () => {
      events.push('second');
      return 2;
    });
    await expect(slow).rejects.toThrow('boom');
    await expect(fast).resolves.toBe(2);
    expect(events).toEqual(['first:start', 'first:end', 'second']);
    expect(lock.heldKeys).toBe(0);
  });

  test('different keys run concurrently', async () => {
    const lock = new KeyedLock();
    const events: string[] = [];
    await Promise.all([
      lock.run('a', async () => {
        events.push('a:start');
        await sleep(30);
        events.push('a:end');
      }),
      lock.run('b', async () => {
        events.push('b');
      }),
    ]);
    expect(events).toEqual(['a:start', 'b', 'a:end']);
  });
});
