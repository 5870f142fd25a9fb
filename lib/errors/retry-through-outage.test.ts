import { expect, test } from 'vitest';
import { retryThroughOutage } from './retry-through-outage';

const databaseDown = () => new Error('Connection terminated unexpectedly');
const diskFull = () => Object.assign(new Error('no space left'), { code: 'ENOSPC' });

const failingTimes = (times: number, error: () => Error) => {
  let calls = 0;
  return {
    calls: () => calls,
    work: async () => {
      calls++;
      if (calls <= times) throw error();
      return 'recorded';
    },
  };
};

test('a step that fails while the database is down runs again until it succeeds', async () => {
  const step = failingTimes(3, databaseDown);
  await expect(retryThroughOutage(step.work, { windowMs: 5_000, delayMs: 10, only: ['database'] })).resolves.toBe('recorded');
  expect(step.calls()).toBe(4);
});

test('an outage longer than the window, another dependency, or another error is thrown', async () => {
  const long = failingTimes(1_000, databaseDown);
  await expect(retryThroughOutage(long.work, { windowMs: 100, delayMs: 20 })).rejects.toThrow('Connection terminated');
  expect(long.calls()).toBeGreaterThan(1);
  expect(long.calls()).toBeLessThan(10);

  const disk = failingTimes(1, diskFull);
  await expect(retryThroughOutage(disk.work, { windowMs: 5_000, delayMs: 10, only: ['database'] })).rejects.toThrow('no space left');
  expect(disk.calls()).toBe(1);

  const bug = failingTimes(1, () => new TypeError('undefined is not a function'));
  await expect(retryThroughOutage(bug.work, { windowMs: 5_000, delayMs: 10 })).rejects.toThrow(TypeError);
  expect(bug.calls()).toBe(1);
});
