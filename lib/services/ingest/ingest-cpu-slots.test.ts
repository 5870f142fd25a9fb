import { describe, expect, test } from 'vitest';
import { getEnv } from '../../env';
import { whenIngestCpuHasRoom, withIngestCpuSlot } from './ingest-cpu-slots';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('ingest CPU slots', () => {
  test('at most INGEST_CPU_CONCURRENCY checks at once; waiting post-ready work starts only once nobody queues and a slot is free', async () => {
    const limit = getEnv().ingestCpuConcurrency;
    const releases: Array<() => void> = [];
    let running = 0;
    let maxRunning = 0;
    const check = () =>
      withIngestCpuSlot(new AbortController().signal, async () => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        await new Promise<void>((resolve) => releases.push(resolve));
        running--;
      });
    const checks = Array.from({ length: limit + 1 }, check);
    await sleep(20);
    expect(maxRunning).toBe(limit);

    let roomAt: number | null = null;
    const room = whenIngestCpuHasRoom(new AbortController().signal).then(() => (roomAt = running));
    await sleep(300);
    expect(roomAt).toBeNull();
    releases.shift()?.(); // the queued check takes the slot: still no room
    await sleep(300);
    expect(roomAt).toBeNull();
    releases.shift()?.(); // a slot is free and nobody waits
    await room;
    expect(roomAt).toBe(limit - 1);
    for (const release of releases.splice(0)) release();
    await Promise.all(checks);
  });

  test('a wait for room ends when aborted', async () => {
    const release: Array<() => void> = [];
    const limit = getEnv().ingestCpuConcurrency;
    const checks = Array.from({ length: limit }, () => withIngestCpuSlot(new AbortController().signal, () => new Promise<void>((resolve) => release.push(resolve))));
    const controller = new AbortController();
    const waiting = whenIngestCpuHasRoom(controller.signal);
    controller.abort(new Error('server is shutting down'));
    await expect(waiting).rejects.toThrow('server is shutting down');
    for (const resolve of release) resolve();
    await Promise.all(checks);
  });
});
