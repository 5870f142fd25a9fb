import { describe, expect, test } from 'vitest';
import { startClaimLoop } from './claim-loop';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('startClaimLoop', () => {
  test('runs at most `concurrency` units, claims the next as each finishes, and stops claiming on stop', async () => {
    const queue = [1, 2, 3, 4, 5];
    let concurrent = 0;
    let maxConcurrent = 0;
    const finished: number[] = [];
    const loop = startClaimLoop<number>({
      concurrency: 2,
      claim: async () => queue.shift() ?? null,
      run: async (unit) => {
        concurrent++;
        maxConcurrent = Math.max(maxConcurrent, concurrent);
        await sleep(20);
        concurrent--;
        finished.push(unit);
      },
      subscribe: () => () => undefined,
      pollIntervalMs: 1_000,
      onClaimError: (error) => {
        throw error;
      },
      onRunError: (error) => {
        throw error;
      },
    });
    await sleep(150);
    expect(finished.sort()).toEqual([1, 2, 3, 4, 5]);
    expect(maxConcurrent).toBe(2);
    queue.push(6);
    await loop.stop(100);
    await sleep(30);
    expect(finished).not.toContain(6);
  });

  test('a wake-up claims new work at once; stop lets running work be interrupted and waits for it', async () => {
    const queue: string[] = [];
    let wake = () => undefined as void;
    const aborts: string[] = [];
    const controllers = new Map<string, AbortController>();
    const loop = startClaimLoop<string>({
      concurrency: 4,
      claim: async () => queue.shift() ?? null,
      run: (unit) =>
        new Promise<void>((resolve) => {
          const controller = new AbortController();
          controllers.set(unit, controller);
          controller.signal.addEventListener('abort', () => {
            aborts.push(unit);
            resolve();
          });
        }),
      subscribe: (listener) => {
        wake = listener;
        return () => undefined;
      },
      pollIntervalMs: 60_000,
      onClaimError: () => undefined,
      onRunError: () => undefined,
    });
    queue.push('a', 'b');
    wake();
    await sleep(10);
    expect(loop.running().sort()).toEqual(['a', 'b']);
    await loop.stop(1_000, (running) => running.forEach((unit) => controllers.get(unit)?.abort()));
    expect(aborts.sort()).toEqual(['a', 'b']);
    expect(loop.running()).toEqual([]);
  });
});
