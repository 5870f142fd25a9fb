import { claimDueJob } from '../db/claim-job';
import { getDb } from '../db/client';
import type { Prisma } from '../db/generated/client';
import { generateId } from '../utils/ids';
import { notifyJobEnqueued } from './signals';

// A job queue in the database, no Redis needed: lib/db/claim-job.ts claims rows (status 'pending' →
// 'running') with a conditional update on SQLite and FOR UPDATE SKIP LOCKED on PostgreSQL.

export type JobRow = { id: string; name: string; payloadJson: string; attempts: number; maxAttempts: number };

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

export const completeJob = async (id: string): Promise<void> => {
  await getDb().job.update({
    where: { id },
    data: { status: 'completed', lockedAt: null, lockedBy: null, dedupeKey: null, lastError: null },
  });
};

const backoffMs = (attempt: number) => Math.min(5 * 60_000, 2_000 * 2 ** (attempt - 1));

export const failJob = async (job: JobRow, error: unknown, { retry }: { retry: boolean }): Promise<void> => {
  const message = error instanceof Error ? error.message : String(error);
  await getDb().job.update({
    where: { id: job.id },
    data: retry
      ? { status: 'pending', lockedAt: null, lockedBy: null, lastError: message, runAfter: new Date(Date.now() + backoffMs(job.attempts)) }
      : { status: 'failed', lockedAt: null, lockedBy: null, lastError: message, dedupeKey: null },
  });
};

// Puts a job back without counting the attempt (graceful shutdown).
export const releaseJob = async (job: JobRow): Promise<void> => {
  await getDb().job.update({
    where: { id: job.id },
    data: { status: 'pending', lockedAt: null, lockedBy: null, attempts: Math.max(0, job.attempts - 1) },
  });
};

// The embedded worker is the only one using this database, so anything still marked running when
// it starts was interrupted (crash, kill -9) and is picked up again.
export const recoverInterruptedJobs = async (): Promise<number> => {
  const result = await getDb().job.updateMany({
    where: { status: 'running' },
    data: { status: 'pending', lockedAt: null, lockedBy: null },
  });
  return result.count;
};
