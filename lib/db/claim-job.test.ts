import { afterEach, describe, expect, test } from 'vitest';
import { claimDueJob, type ClaimedJob } from './claim-job';
import type { Db } from './client';
import { createTestPostgresDatabase, createTestSqliteDatabase, isTestPostgresReachable, migratedClients, type TestDatabase } from './test-databases';

const postgresReachable = await isTestPostgresReachable();

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

// Two clients on one database, as two nodes would have.
const twoClients = async (make: () => Promise<TestDatabase>) => (await migratedClients(make, 2, cleanups)) as [Db, Db];

const seedJobs = async (db: Db, count: number, runAfter: Date) => {
  await db.job.createMany({
    data: Array.from({ length: count }, (_, index) => ({
      id: `job${String(index).padStart(3, '0')}`,
      name: 'ingest-asset-job',
      payloadJson: JSON.stringify({ index }),
      runAfter: new Date(runAfter.getTime() + index),
    })),
  });
};

// Each claimer keeps claiming until nothing is due, like a worker loop.
const drain = async (db: Db, workerId: string): Promise<ClaimedJob[]> => {
  const claimed: ClaimedJob[] = [];
  for (;;) {
    const job = await claimDueJob({ db, workerId });
    if (!job) return claimed;
    claimed.push(job);
  }
};

const providers = [
  { name: 'SQLite', make: createTestSqliteDatabase, skip: false },
  { name: 'PostgreSQL at 127.0.0.1:5432', make: () => createTestPostgresDatabase(), skip: !postgresReachable },
];

describe.each(providers)('claimDueJob on $name', ({ make, skip }) => {
  test.skipIf(skip)('claims the longest-waiting due job, counts the attempt and leaves future jobs alone', async () => {
    const [db] = await twoClients(make);
    const now = Date.now();
    await seedJobs(db, 2, new Date(now - 60_000));
    await db.job.create({ data: { id: 'later', name: 'ingest-asset-job', payloadJson: '{}', runAfter: new Date(now + 60_000) } });

    const first = await claimDueJob({ db, workerId: 'w1' });
    expect(first).toEqual({ id: 'job000', name: 'ingest-asset-job', payloadJson: '{"index":0}', attempts: 1, maxAttempts: 3, dedupeKey: null, createdAt: expect.any(Date) });
    expect(await claimDueJob({ db, workerId: 'w1' })).toMatchObject({ id: 'job001' });
    expect(await claimDueJob({ db, workerId: 'w1' })).toBeNull();

    const row = await db.job.findUniqueOrThrow({ where: { id: 'job000' } });
    expect(row).toMatchObject({ status: 'running', lockedBy: 'w1', attempts: 1 });
    expect(row.lockedAt).toBeInstanceOf(Date);
    expect(Math.abs(row.lockedAt!.getTime() - Date.now())).toBeLessThan(10_000);
    expect(await db.job.findUniqueOrThrow({ where: { id: 'later' } })).toMatchObject({ status: 'pending', attempts: 0 });
  });

  test.skipIf(skip)('skips the kinds of job it is told to, even when they waited longest', async () => {
    const [db] = await twoClients(make);
    const now = Date.now();
    await seedJobs(db, 2, new Date(now - 60_000));
    await db.job.create({ data: { id: 'audio', name: 'encode-audio-job', payloadJson: '{}', runAfter: new Date(now - 120_000) } });

    expect(await claimDueJob({ db, workerId: 'w1', excludeNames: ['encode-audio-job'] })).toMatchObject({ id: 'job000' });
    expect(await claimDueJob({ db, workerId: 'w1', excludeNames: ['encode-audio-job', 'ingest-asset-job'] })).toBeNull();
    expect(await claimDueJob({ db, workerId: 'w1' })).toMatchObject({ id: 'audio' });
  });

  test.skipIf(skip)('two claimers at once never get the same job, and between them get every job', async () => {
    const [a, b] = await twoClients(make);
    await seedJobs(a, 40, new Date(Date.now() - 60_000));
    const [byA, byB] = await Promise.all([drain(a, 'node-a'), drain(b, 'node-b')]);

    const ids = [...byA, ...byB].map((job) => job.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(Array.from({ length: 40 }, (_, index) => `job${String(index).padStart(3, '0')}`));
    const rows = await a.job.findMany({ select: { id: true, lockedBy: true, attempts: true, status: true } });
    for (const row of rows) {
      expect(row).toMatchObject({ status: 'running', attempts: 1 });
      expect(row.lockedBy).toBe(byA.some((job) => job.id === row.id) ? 'node-a' : 'node-b');
    }
  });
});
