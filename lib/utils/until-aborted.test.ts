import { describe, expect, test } from 'vitest';
import { untilAborted } from './until-aborted';

describe('untilAborted', () => {
  test('settles with the work when the signal stays quiet', async () => {
    await expect(untilAborted(Promise.resolve(7), new AbortController().signal)).resolves.toBe(7);
    await expect(untilAborted(Promise.reject(new Error('boom')), new AbortController().signal)).rejects.toThrow('boom');
  });

  test('rejects with the abort reason at once, while the work goes on', async () => {
    const controller = new AbortController();
    let finish: (value: string) => void = () => undefined;
    const work = new Promise<string>((resolve) => (finish = resolve));
    const waiting = untilAborted(work, controller.signal);
    controller.abort(new Error('shutting down'));
    await expect(waiting).rejects.toThrow('shutting down');
    finish('done anyway');
    await expect(work).resolves.toBe('done anyway');
  });

  test('an already aborted signal rejects without waiting', async () => {
    await expect(untilAborted(new Promise(() => undefined), AbortSignal.abort())).rejects.toThrow();
  });
});
