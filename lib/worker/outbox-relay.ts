import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Logger } from 'pino';
import { claimDueJob, type ClaimedJob } from '../db/claim-job';
import { getDb, type Db } from '../db/client';
import { startClaimLoop } from './claim-loop';
import { onJobEnqueued } from '../jobs/signals';
import type { JobQueues } from '../jobs/bullmq/job-queues';

// With Redis, the Job table is an outbox. enqueueJob still writes a row, often inside the caller's
// transaction, so a job exists exactly when the change that needs it commits: a rolled-back asset
// leaves no job behind, and a committed one cannot lose its job to a crash between the commit and
// a Redis call. This relay moves committed rows to BullMQ: woken in-process after a commit
// (notifyJobEnqueued) and by a poll for rows another node committed and did not relay (it died).
// Rows are claimed like jobs (one relay per row, on any node) and deleted once BullMQ has the job;
// a relay that dies in between leaves the row to be claimed again when its lease runs out, and the
// row id as BullMQ job id makes the second add find the first.

const POLL_INTERVAL_MS = 2_000;
const CONCURRENCY = 4;
// A row whose add failed (Redis unreachable) is tried again after this long.
const RETRY_AFTER_MS = 2_000;

export type OutboxRelay = { stop: (graceMs: number) => Promise<void> };

export const startOutboxRelay = ({ queues, log, db = getDb() }: { queues: JobQueues; log: Logger; db?: Db }): OutboxRelay => {
  const relayId = `relay:${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;

  const relay = async (row: ClaimedJob) => {
    try {
      await queues.add({ id: row.id, name: row.name, payload: JSON.parse(row.payloadJson), maxAttempts: row.maxAttempts, dedupeKey: row.dedupeKey });
    } catch (error) {
      log.warn({ err: error, jobId: row.id, job: row.name }, 'could not hand a job to Redis; retrying');
      await db.job.updateMany({
        where: { id: row.id, lockedBy: relayId },
        data: { status: 'pending', lockedAt: null, lockedBy: null, runAfter: new Date(Date.now() + RETRY_AFTER_MS) },
      });
      return;
    }
    await db.job.deleteMany({ where: { id: row.id, lockedBy: relayId } });
  };

  const loop = startClaimLoop<ClaimedJob>({
    concurrency: CONCURRENCY,
    claim: () => claimDueJob({ db, workerId: relayId }),
    run: relay,
    subscribe: onJobEnqueued,
    pollIntervalMs: POLL_INTERVAL_MS,
    onClaimError: (error) => log.error({ err: error }, 'failed to read the job outbox'),
    onRunError: (error, row) => log.error({ err: error, jobId: row.id }, 'job outbox bookkeeping failed'),
  });
  return { stop: (graceMs) => loop.stop(graceMs) };
};
