import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { getDb } from '../db/client';
import { setUpTestInstallation, type TestInstallation } from '../db/test-support/test-installation';
import { claimNextJob, enqueueJob, failJob, OUTAGE_RETRY_DELAY_MS, OUTAGE_RETRY_WINDOW_MS, postponeJob, waitsOutOutage } from './queue';

// The database queue's answers to a failed run, on a real SQLite database of this file's own
// (setUpTestInstallation).

let installation: TestInstallation | undefined;

beforeAll(async () => {
  installation = await setUpTestInstallation('queue');
});

afterAll(async () => {
  await installation?.tearDown();
});

const diskFull = async (): Promise<unknown> => writeFile('/dev/full', 'x').then(() => new Error('expected ENOSPC'), (error: unknown) => error);

describe('a failed run', () => {
  test('waits out an outage while the job is young, and only an outage', async () => {
    const now = Date.now();
    expect(waitsOutOutage(await diskFull(), now - 1_000, now)).toBe(true);
    expect(waitsOutOutage(await diskFull(), now - OUTAGE_RETRY_WINDOW_MS, now), 'older than the window').toBe(false);
    expect(waitsOutOutage(new Error('Input is not a media file'), now, now)).toBe(false);
    // A refused connection may be the user's input URL, not a dependency.
    expect(waitsOutOutage(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }), now, now)).toBe(false);
  });

  test('postponed for an outage: pending again later, the attempt not counted', async () => {
    await enqueueJob({ name: 'ingest-asset-job', payload: { assetId: 'a1' }, maxAttempts: 3 });
    const job = await claimNextJob('worker-1');
    expect(job).toMatchObject({ attempts: 1, createdAt: expect.any(Date) });
    const before = Date.now();
    await postponeJob(job!, 'worker-1', await diskFull());
    const row = await getDb().job.findUniqueOrThrow({ where: { id: job!.id } });
    expect(row).toMatchObject({ status: 'pending', attempts: 0, lockedBy: null, lastError: expect.stringContaining('ENOSPC') });
    expect(row.runAfter.getTime()).toBeGreaterThanOrEqual(before + OUTAGE_RETRY_DELAY_MS - 5);
    expect(await claimNextJob('worker-1'), 'not due yet').toBeNull();
  });

  test('failed otherwise: retried with the attempt counted', async () => {
    await enqueueJob({ name: 'ingest-asset-job', payload: { assetId: 'a2' }, maxAttempts: 3 });
    const job = await claimNextJob('worker-1');
    await failJob(job!, 'worker-1', new Error('Input is not a media file'), { retry: true });
    expect(await getDb().job.findUniqueOrThrow({ where: { id: job!.id } })).toMatchObject({ status: 'pending', attempts: 1 });
  });
});
