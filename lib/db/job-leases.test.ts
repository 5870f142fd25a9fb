import { afterEach, describe, expect, test } from 'vitest';
import { recoverInterruptedJobs } from '../jobs/queue';
import { claimDueJob, JOB_LEASE_MS, renewJobLeases } from './claim-job';
import type { Db } from './client';
import { createTestPostgresDatabase, createTestSqliteDatabase, isTestPostgresReachable, migratedClients, type TestDatabase } from './test-databases';

// Running jobs are leased: two nodes share one database, one of them dies mid-job, the other takes
// the job over once the lease has run out, and not before.

const postgresReachable = await isTestPostgresReachable();

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const twoNodes = async (make: () => Promise<TestDatabase>) => (await migratedClients(make, 2, cleanups)) as [Db, Db];

const at = (start: number, offsetMs: number) => new Date(start + offsetMs);

const providers = [
  { name: 'SQLite', provider: 'sqlite', make: createTestSqliteDatabase, skip: false },
  { name: 'PostgreSQL at 127.0.0.1:5432', provider: 'postgresql', make: () => createTestPostgresDatabase(), skip: !postgresReachable },
];

describe.each(providers)('job leases on $name', ({ make, skip, provider }) => {
  test.skipIf(skip)('a running job is claimable again only after its lease ran out, with the attempt counted', async () => {
    const [a, b] = await twoNodes(make);
    const start = Date.now();
    await a.job.create({ data: { id: 'job', name: 'ingest-asset-job', payloadJson: '{}', runAfter: at(start, -1_000) } });

    expect(await claimDueJob({ db: a, workerId: 'node-a', now: at(start, 0) })).toMatchObject({ id: 'job', attempts: 1 });
    expect(await claimDueJob({ db: b, workerId: 'node-b', now: at(start, JOB_LEASE_MS - 1_000) })).toBeNull();

    const takenOver = await claimDueJob({ db: b, workerId: 'node-b', now: at(start, JOB_LEASE_MS + 1_000) });
    expect(takenOver).toMatchObject({ id: 'job', attempts: 2 });
    expect(await b.job.findUniqueOrThrow({ where: { id: 'job' } })).toMatchObject({ status: 'running', lockedBy: 'node-b' });
    // Taken once: the new holder's lease is fresh.
    expect(await claimDueJob({ db: a, workerId: 'node-a', now: at(start, JOB_LEASE_MS + 2_000) })).toBeNull();
  });

  test.skipIf(skip)('renewing keeps a job locked past the first lease; the worker that lost it learns so', async () => {
    const [a, b] = await twoNodes(make);
    const start = Date.now();
    await a.job.createMany({
      data: ['kept', 'lost'].map((id, index) => ({ id, name: 'ingest-asset-job', payloadJson: '{}', runAfter: at(start, -10_000 + index) })),
    });
    await claimDueJob({ db: a, workerId: 'node-a', now: at(start, 0) });
    await claimDueJob({ db: a, workerId: 'node-a', now: at(start, 0) });

    // node-a renews only `kept` (say `lost` stalled in a long synchronous step), then node-b looks.
    expect(await renewJobLeases({ db: a, workerId: 'node-a', jobIds: ['kept'], now: at(start, JOB_LEASE_MS - 5_000) })).toEqual([]);
    const claimedByB = await claimDueJob({ db: b, workerId: 'node-b', now: at(start, JOB_LEASE_MS + 1_000) });
    expect(claimedByB).toMatchObject({ id: 'lost' });
    expect(await claimDueJob({ db: b, workerId: 'node-b', now: at(start, JOB_LEASE_MS + 1_000) })).toBeNull();

    expect(await renewJobLeases({ db: a, workerId: 'node-a', jobIds: ['kept', 'lost'], now: at(start, JOB_LEASE_MS + 2_000) })).toEqual(['lost']);
    expect(await a.job.findUniqueOrThrow({ where: { id: 'kept' } })).toMatchObject({ lockedBy: 'node-a', lockedAt: at(start, JOB_LEASE_MS + 2_000) });
  });

  test.skipIf(skip)(
    provider === 'sqlite'
      ? 'start-up recovery takes every running job: a SQLite file has one server process'
      : 'start-up recovery takes only expired leases: other nodes may be running the rest',
    async () => {
      const [db] = await twoNodes(make);
      const now = Date.now();
      await db.job.createMany({
        data: [
          { id: 'fresh', name: 'ingest-asset-job', payloadJson: '{}', status: 'running', lockedBy: 'other-node', lockedAt: at(now, -1_000), attempts: 1 },
          { id: 'stale', name: 'ingest-asset-job', payloadJson: '{}', status: 'running', lockedBy: 'dead-node', lockedAt: at(now, -JOB_LEASE_MS - 1_000), attempts: 1 },
          { id: 'waiting', name: 'ingest-asset-job', payloadJson: '{}' },
        ],
      });

      const recovered = await recoverInterruptedJobs({ db, now: at(now, 0) });
      const statuses = Object.fromEntries((await db.job.findMany({ orderBy: { id: 'asc' } })).map((job) => [job.id, job.status]));
      if (provider === 'sqlite') {
        expect(recovered).toBe(2);
        expect(statuses).toEqual({ fresh: 'pending', stale: 'pending', waiting: 'pending' });
      } else {
        expect(recovered).toBe(1);
        expect(statuses).toEqual({ fresh: 'running', stale: 'pending', waiting: 'pending' });
      }
    },
  );
});
