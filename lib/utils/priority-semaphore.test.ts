import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { PrioritySemaphore } from './priority-semaphore';

type Gate = { promise: Promise<void>; open: () => void };
const gate = (): Gate => {
  let open = (): void => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
};

// Lets queued promise callbacks (slot hand-overs) run.
const settle = (): Promise<void> => sleep(0);

describe('PrioritySemaphore', () => {
  it('never runs more than `limit` tasks, and queues the rest instead of failing', async () => {
    const semaphore = new PrioritySemaphore(4);
    let running = 0;
    let peak = 0;
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        semaphore.run(i % 3, async () => {
          running++;
          peak = Math.max(peak, running);
          expect(semaphore.active()).toBeLessThanOrEqual(4);
          await sleep(1 + (i % 4));
          running--;
          return i;
        }),
      ),
    );
    expect(results).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(peak).toBe(4);
    expect(semaphore.active()).toBe(0);
    expect(semaphore.pending()).toBe(0);
  });

  it('starts waiting tasks by priority, lowest number first, FIFO within a priority', async () => {
    const semaphore = new PrioritySemaphore(1);
    const blocker = gate();
    const started: string[] = [];
    const blocking = semaphore.run(0, () => blocker.promise);
    const queued = (
      [
        [5, 'background-1'],
        [1, 'viewer-1'],
        [5, 'background-2'],
        [3, 'prefetch-1'],
        [1, 'viewer-2'],
        [-1, 'urgent'],
        [3, 'prefetch-2'],
        [1, 'viewer-3'],
      ] as const
    ).map(([priority, name]) =>
      semaphore.run(priority, async () => {
        started.push(name);
        await settle();
      }),
    );
    expect(semaphore.pending()).toBe(8);
    expect(started).toEqual([]);

    blocker.open();
    await Promise.all([blocking, ...queued]);
    expect(started).toEqual(['urgent', 'viewer-1', 'viewer-2', 'viewer-3', 'prefetch-1', 'prefetch-2', 'background-1', 'background-2']);
  });

  it('lets a newly queued urgent task overtake ones that were already waiting', async () => {
    const semaphore = new PrioritySemaphore(1);
    const blocker = gate();
    const started: string[] = [];
    const record = (name: string) => async () => {
      started.push(name);
    };
    const all = [semaphore.run(0, () => blocker.promise), semaphore.run(9, record('late-low')), semaphore.run(9, record('later-low'))];
    await settle();
    all.push(semaphore.run(0, record('urgent')));
    blocker.open();
    await Promise.all(all);
    expect(started).toEqual(['urgent', 'late-low', 'later-low']);
  });

  it('drops a waiting task whose signal aborts, rejecting with the reason', async () => {
    const semaphore = new PrioritySemaphore(1);
    const blocker = gate();
    const blocking = semaphore.run(0, () => blocker.promise);
    const controller = new AbortController();
    let ran = false;
    const aborted = semaphore.run(
      1,
      async () => {
        ran = true;
      },
      controller.signal,
    );
    const after = semaphore.run(2, async () => 'after');
    expect(semaphore.pending()).toBe(2);

    const reason = new Error('viewer went away');
    controller.abort(reason);
    await expect(aborted).rejects.toBe(reason);
    expect(semaphore.pending()).toBe(1);

    blocker.open();
    await expect(after).resolves.toBe('after');
    await blocking;
    expect(ran).toBe(false);
  });

  it('uses the default AbortError reason and rejects at once when already aborted', async () => {
    const semaphore = new PrioritySemaphore(1);
    const blocker = gate();
    const blocking = semaphore.run(0, () => blocker.promise);
    const controller = new AbortController();
    const waiting = semaphore.run(0, async () => 'never', controller.signal);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });

    const preAborted = AbortSignal.abort(new Error('too late'));
    await expect(semaphore.run(0, async () => 'never', preAborted)).rejects.toThrow('too late');
    expect(semaphore.pending()).toBe(0);
    blocker.open();
    await blocking;
  });

  it('ignores an abort once the task has started', async () => {
    const semaphore = new PrioritySemaphore(1);
    const controller = new AbortController();
    const inner = gate();
    const result = semaphore.run(0, async () => {
      await inner.promise;
      return 'finished';
    }, controller.signal);
    controller.abort();
    inner.open();
    await expect(result).resolves.toBe('finished');
  });

  it('releases the slot when a task rejects or throws synchronously', async () => {
    const semaphore = new PrioritySemaphore(1);
    const failing = semaphore.run(0, async () => {
      await settle();
      throw new Error('encode failed');
    });
    const throwing = semaphore.run(0, () => {
      throw new Error('bad arguments');
    });
    const next = semaphore.run(0, async () => 'next');
    await expect(failing).rejects.toThrow('encode failed');
    await expect(throwing).rejects.toThrow('bad arguments');
    await expect(next).resolves.toBe('next');
    expect(semaphore.active()).toBe(0);
    expect(semaphore.pending()).toBe(0);

    // The synchronous-throw path is also taken when a slot is free straight away.
    await expect(semaphore.run(0, () => {
      throw new Error('again');
    })).rejects.toThrow('again');
    expect(semaphore.active()).toBe(0);
  });

  it('reports active and pending counts as tasks start and finish', async () => {
    const semaphore = new PrioritySemaphore(2);
    const gates = [gate(), gate(), gate()];
    const runs = gates.map((g) => semaphore.run(0, () => g.promise));
    expect(semaphore.active()).toBe(2);
    expect(semaphore.pending()).toBe(1);
    gates[0]?.open();
    await runs[0];
    await settle();
    expect(semaphore.active()).toBe(2);
    expect(semaphore.pending()).toBe(0);
    gates[1]?.open();
    gates[2]?.open();
    await Promise.all(runs);
    expect(semaphore.active()).toBe(0);
  });

  it('validates its arguments', async () => {
    expect(() => new PrioritySemaphore(0)).toThrow(RangeError);
    expect(() => new PrioritySemaphore(1.5)).toThrow(RangeError);
    await expect(new PrioritySemaphore(1).run(Number.NaN, async () => 1)).rejects.toThrow(RangeError);
  });
});
