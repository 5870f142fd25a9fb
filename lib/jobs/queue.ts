import { claimDueJob, JOB_LEASE_MS, renewJobLeases } from '../db/claim-job';
import { databaseProviderOf, getDb, type Db } from '../db/client';
import type { Prisma } from '../db/generated/client';
import { unavailableDependencyOf } from '../errors/dependency-unavailable';
import { generateId } from '../utils/ids';
import { notifyJobEnqueued } from './signals';

// A job queue in the database, no Redis needed: lib/db/claim-job.ts claims rows (status 'pending' →
// 'running') with a conditional update on SQLite and FOR UPDATE SKIP LOCKED on PostgreSQL. A
// running job is leased to its worker (see claim-job.ts), so the outcome is written only while the
// worker still holds it: one whose lease was lost to another worker leaves the row to that worker.

export type JobRow = { id: string; name: string; payloadJson: string; attempts: number; maxAttempts: number; createdAt: Date };

// Pass `transaction` to enqueue inside it, so the job exists exactly when the change that needs
// it does. The worker is then not woken here (it would look before the commit): the caller calls
// notifyJobEnqueued() once the transaction has committed.
export const enqueueJob = async ({
  name,
  payload,
  maxAttempts,
  dedupeKey,
  transaction,
}: {
  name: string;
  payload: unknown;
  maxAttempts: number;
  dedupeKey?: string;
  transaction?: Prisma.TransactionClient;
}): Promise<void> => {
  const db = transaction ?? getDb();
  const data = { id: generateId(), name, payloadJson: JSON.stringify(payload), maxAttempts, dedupeKey };
  if (dedupeKey) {
    await db.job.upsert({ where: { dedupeKey }, create: data, update: {} });
  } else {
    await db.job.create({ data });
  }
  if (!transaction) notifyJobEnqueued();
};

// `excludeNames`: kinds of job whose slots are full right now.
export const claimNextJob = (workerId: string, { excludeNames = [] }: { excludeNames?: string[] } = {}): Promise<JobRow | null> =>
  claimDueJob({ workerId, excludeNames });

const heldBy = (job: JobRow, workerId: string) => ({ id: job.id, status: 'running', lockedBy: workerId });

export const completeJob = async (job: JobRow, workerId: string): Promise<void> => {
  await getDb().job.updateMany({
    where: heldBy(job, workerId),
    data: { status: 'completed', lockedAt: null, lockedBy: null, dedupeKey: null, lastError: null },
  });
};

/** How long a job that failed its `attempt`-th try waits before the next (BullMQ uses it too). */
export const retryDelayMs = (attempt: number): number => Math.min(5 * 60_000, 2_000 * 2 ** (attempt - 1));

/**
 * A job that failed because a dependency is down (the database, object storage, Redis, this node's
 * disk) is tried again later without spending an attempt, while it is younger than this: an outage
 * is no reason to fail a valid asset, and a job older than this gives up as before, so nothing
 * waits for ever. (Not for network errors in general: those may be the user's input URL.)
 */
export const OUTAGE_RETRY_WINDOW_MS = 15 * 60_000;
// Often enough to resume soon after a restart, rarely enough not to hammer what is recovering.
export const OUTAGE_RETRY_DELAY_MS = 5_000;

export const waitsOutOutage = (error: unknown, createdAt: Date | number, now = Date.now()): boolean => {
  const dependency = unavailableDependencyOf(error);
  return dependency !== null && dependency !== 'network' && now - new Date(createdAt).getTime() < OUTAGE_RETRY_WINDOW_MS;
};

export const failJob = async (job: JobRow, workerId: string, error: unknown, { retry }: { retry: boolean }): Promise<void> => {
  const message = error instanceof Error ? error.message : String(error);
  await getDb().job.updateMany({
    where: heldBy(job, workerId),
    data: retry
      ? { status: 'pending', lockedAt: null, lockedBy: null, lastError: message, runAfter: new Date(Date.now() + retryDelayMs(job.attempts)) }
      : { status: 'failed', lockedAt: null, lockedBy: null, lastError: message, dedupeKey: null },
  });
};

// Puts a job back without counting the attempt: at once (graceful shutdown), or later with why.
const putBackUncounted = async (job: JobRow, workerId: string, later?: { lastError: string; runAfter: Date }): Promise<void> => {
  await getDb().job.updateMany({
    where: heldBy(job, workerId),
    data: { status: 'pending', lockedAt: null, lockedBy: null, attempts: Math.max(0, job.attempts - 1), ...later },
  });
};

// A dependency is down (see waitsOutOutage): tried again after OUTAGE_RETRY_DELAY_MS.
export const postponeJob = (job: JobRow, workerId: string, error: unknown): Promise<void> =>
  putBackUncounted(job, workerId, {
    lastError: error instanceof Error ? error.message : String(error),
    runAfter: new Date(Date.now() + OUTAGE_RETRY_DELAY_MS),
  });

// Graceful shutdown: for this or another worker to resume.
export const releaseJob = (job: JobRow, workerId: string): Promise<void> => putBackUncounted(job, workerId);

/** Renews the leases of the jobs this worker runs; returns the ids of those it lost. */
export const renewLeases = (workerId: string, jobIds: string[]): Promise<string[]> => renewJobLeases({ workerId, jobIds });

// Jobs left `running` by a process that died are due again once their lease runs out; this makes
// them pending at once where that is known to be safe. A SQLite file has one server process (split
// roles refuse it), so whatever it finds running at start-up was interrupted. On PostgreSQL other
// nodes may be running jobs right now: only expired leases are taken (a node's hostname and pid
// cannot tell its previous run apart from a live twin in another container).
export const recoverInterruptedJobs = async ({ now = new Date(), db = getDb() }: { now?: Date; db?: Db } = {}): Promise<number> => {
  const interrupted =
    databaseProviderOf(db) === 'sqlite' ? { status: 'running' } : { status: 'running', lockedAt: { lt: new Date(now.getTime() - JOB_LEASE_MS) } };
  const result = await db.job.updateMany({ where: interrupted, data: { status: 'pending', lockedAt: null, lockedBy: null } });
  return result.count;
};
