import { describe, expect, test } from 'vitest';
import { SingleFlight } from './single-flight';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('SingleFlight', () => {
  test('concurrent calls for one key share one execution', async () => {
    const flights = new SingleFlight<number>();
    let runs = 0;
    const work = async () => {
      runs++;
      await sleep(20);
      return runs;
    };
    const results = await Promise.all([flights.run('a', work), flights.run('a', work), flights.run('a', work)]);
    expect(results).toEqual([1, 1, 1]);
    expect(runs).toBe(1);
    expect(flights.size).toBe(0);
  });

  test('different keys run separately; a settled key runs again', async () => {
    const flights = new SingleFlight<string>();
    let runs = 0;
    const work = async () => `${++runs}`;
    await Promise.all([flights.run('a', work), flights.run('b', work)]);
    expect(runs).toBe(2);
    await flights.run('a', work);
    expect(runs).toBe(3);
  });

  test('a failure reaches every waiter and frees the key, also when the work throws synchronously', async () => {
    const flights = new SingleFlight<number>();
    const failing = () => {
      throw new Error('boom');
    };
    await expect(Promise.all([flights.run('a', failing), flights.run('a', failing)])).rejects.toThrow('boom');
    expect(flights.size).toBe(0);
    await expect(flights.run('a', async () => 7)).resolves.toBe(7);
  });
});
