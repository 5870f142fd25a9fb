import { databaseProviderOf, getDb, type Db } from './client';

// Claims the due job that has waited longest for one worker: it becomes `running`, locked by that
// worker, with one more attempt counted. Each provider gets the claim that is correct and cheap on
// it; both give a job to exactly one claimer.
//
// A running job is leased, not owned: its worker renews `lockedAt` while it runs (renewJobLeases),
// and a job whose lease ran out (its worker was killed, its machine went away) is due again for any
// worker, on any node.

/** How long a running job stays locked to its worker without a renewal. */
export const JOB_LEASE_MS = 30_000;

export type ClaimedJob = {
  id: string;
  name: string;
  payloadJson: string;
  attempts: number;
  maxAttempts: number;
  dedupeKey: string | null;
  createdAt: Date;
};

// SQLite has one writer at a time, so a conditional update (pending → running) decides; a claimer
// that lost the race to the same row tries the next candidate.
const claimWithConditionalUpdate = async (db: Db, workerId: string, now: Date, leaseMs: number, excludeNames: string[]): Promise<ClaimedJob | null> => {
  const claimable = [
    { status: 'pending', runAfter: { lte: now } },
    { status: 'running', lockedAt: { lt: new Date(now.getTime() - leaseMs) } },
  ];
  for (let tries = 0; tries < 5; tries++) {
    const candidate = await db.job.findFirst({
      where: { OR: claimable, ...(excludeNames.length > 0 && { name: { notIn: excludeNames } }) },
      orderBy: [{ runAfter: 'asc' }, { createdAt: 'asc' }],
      select: { id: true },
    });
    if (!candidate) return null;
    const claimed = await db.job.updateMany({
      where: { id: candidate.id, OR: claimable },
      data: { status: 'running', lockedAt: now, lockedBy: workerId, attempts: { increment: 1 } },
    });
    if (claimed.count === 1) {
      return db.job.findUniqueOrThrow({
        where: { id: candidate.id },
        select: { id: true, name: true, payloadJson: true, attempts: true, maxAttempts: true, dedupeKey: true, createdAt: true },
      });
    }
  }
  return null;
};

// PostgreSQL lets many claimers (workers on several nodes) select at once: SKIP LOCKED hands each
// a different row in one statement instead of letting them collide on the oldest one. Raw SQL must
// set `updatedAt` itself (Prisma's @updatedAt is applied by the client, not by the database).
const claimWithSkipLocked = async (db: Db, workerId: string, now: Date, leaseMs: number, excludeNames: string[]): Promise<ClaimedJob | null> => {
  const leaseExpiredBefore = new Date(now.getTime() - leaseMs);
  const rows = await db.$queryRaw<ClaimedJob[]>`
    UPDATE "Job"
    SET "status" = 'running', "lockedAt" = ${now}, "lockedBy" = ${workerId}, "attempts" = "attempts" + 1, "updatedAt" = ${now}
    WHERE "id" = (
      SELECT "id" FROM "Job"
      WHERE (("status" = 'pending' AND "runAfter" <= ${now}) OR ("status" = 'running' AND "lockedAt" < ${leaseExpiredBefore}))
        AND "name" <> ALL(${excludeNames}::text[])
      ORDER BY "runAfter" ASC, "createdAt" ASC
      LIMIT 1
      FOR UPDATE SKIP LOCKED
    )
    RETURNING "id", "name", "payloadJson", "attempts", "maxAttempts", "dedupeKey", "createdAt"`;
  return rows[0] ?? null;
};

/** `excludeNames`: kinds of job not to claim now (their slots are full). */
export const claimDueJob = ({
  workerId,
  now = new Date(),
  db = getDb(),
  excludeNames = [],
  leaseMs = JOB_LEASE_MS,
}: {
  workerId: string;
  now?: Date;
  db?: Db;
  excludeNames?: string[];
  leaseMs?: number;
}): Promise<ClaimedJob | null> =>
  databaseProviderOf(db) === 'postgresql'
    ? claimWithSkipLocked(db, workerId, now, leaseMs, excludeNames)
    : claimWithConditionalUpdate(db, workerId, now, leaseMs, excludeNames);

/**
 * Extends the leases of the jobs `workerId` runs; returns the ids it no longer holds (its lease ran
 * out and another worker claimed the job, or the job is gone), whose work should stop.
 */
export const renewJobLeases = async ({
  workerId,
  jobIds,
  now = new Date(),
  db = getDb(),
}: {
  workerId: string;
  jobIds: string[];
  now?: Date;
  db?: Db;
}): Promise<string[]> => {
  if (jobIds.length === 0) return [];
  const renewed = await db.job.updateMany({ where: { id: { in: jobIds }, status: 'running', lockedBy: workerId }, data: { lockedAt: now } });
  if (renewed.count === jobIds.length) return [];
  const held = await db.job.findMany({ where: { id: { in: jobIds }, status: 'running', lockedBy: workerId }, select: { id: true } });
  const heldIds = new Set(held.map(({ id }) => id));
  return jobIds.filter((id) => !heldIds.has(id));
};
