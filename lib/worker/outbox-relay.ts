import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Logger } from 'pino';
import { claimDueJob, type ClaimedJob } from '../db/claim-job';
import { getDb, type Db } from '../db/client';
import { startClaimLoop } from './claim-loop';
import { notifyJobEnqueued, onJobEnqueued } from '../jobs/signals';
import type { JobQueues } from '../jobs/bullmq/job-queues';

// With Redis, the Job table is an outbox. enqueueJob still writes a row, often inside the caller's
// transaction, so a job exists exactly when the change that needs it commits: a rolled-back asset
// leaves no job behind, and a committed one cannot lose its job to a crash between the commit and
// a Redis call. This relay moves committed rows to BullMQ: woken in-process after a commit
// (notifyJobEnqueued) and by a poll for rows another node committed and did not relay (it died).
// Rows are claimed like jobs (one relay per row, on any node) and marked `relayed` once BullMQ has
// the job; a relay that dies in between leaves the row to be claimed again when its lease runs out,
// and the row id as BullMQ job id makes the second add find the first. A relayed row stays until its
// job has finished (the BullMQ worker deletes it), because Redis may lose the job: restarted empty,
// or from a snapshot older than the job. The relays look for relayed rows whose job Redis no longer
// has, and relay them again.

const POLL_INTERVAL_MS = 2_000;
export const RELAYED = 'relayed';
// How often a relay looks for jobs Redis lost, and how long a relayed row is left alone first.
const RECONCILE_INTERVAL_MS = 15_000;
const RECONCILE_AFTER_MS = 10_000;
const RECONCILE_BATCH = 100;
const CONCURRENCY = 4;
// A row whose add failed (Redis unreachable) is tried again after this long.
const RETRY_AFTER_MS = 2_000;

export type OutboxRelay = { stop: (graceMs: number) => Promise<void> };

/**
 * A relayed job has finished: its outbox row goes. Whatever the row's status: a quick job may
 * finish before the relay has marked its row `relayed` (the relay's update then finds nothing),
 * and a row left behind would keep the job's dedupe key taken until the reconciliation came by.
 */
export const removeFinishedJob = (db: Db, jobId: string): Promise<unknown> => db.job.deleteMany({ where: { id: jobId } });

export const startOutboxRelay = ({
  queues,
  log,
  db = getDb(),
  reconcile: { intervalMs = RECONCILE_INTERVAL_MS, afterMs = RECONCILE_AFTER_MS } = {},
}: {
  queues: JobQueues;
  log: Logger;
  db?: Db;
  /** How often to look for jobs Redis lost, among the rows relayed at least `afterMs` ago. */
  reconcile?: { intervalMs?: number; afterMs?: number };
}): OutboxRelay => {
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
    await db.job.updateMany({ where: { id: row.id, lockedBy: relayId }, data: { status: RELAYED, lockedAt: null, lockedBy: null } });
  };

  // Relayed rows checked longest ago first; each checked is touched, so a long-running job does not
  // keep the others out of the batch.
  const reconcileOnce = async () => {
    const rows = await db.job.findMany({
      where: { status: RELAYED, updatedAt: { lt: new Date(Date.now() - afterMs) } },
      orderBy: { updatedAt: 'asc' },
      take: RECONCILE_BATCH,
      select: { id: true, name: true },
    });
    let requeued = 0;
    for (const row of rows) {
      const state = await queues.stateOf(row);
      const where = { id: row.id, status: RELAYED };
      if (state === 'finished') await db.job.deleteMany({ where });
      else if (state === 'queued') await db.job.updateMany({ where, data: { updatedAt: new Date() } });
      else {
        await db.job.updateMany({ where, data: { status: 'pending', runAfter: new Date() } });
        requeued++;
      }
    }
    if (requeued > 0) {
      log.warn({ requeued }, 'jobs relayed to Redis were not there any more (Redis lost them); relaying them again');
      notifyJobEnqueued();
    }
  };
  let reconciling = false;
  const reconcileTimer = setInterval(() => {
    if (reconciling) return;
    reconciling = true;
    reconcileOnce()
      .catch((error: unknown) => log.warn({ err: error }, 'looking for jobs Redis lost failed'))
      .finally(() => (reconciling = false));
  }, intervalMs);
  reconcileTimer.unref();

  const loop = startClaimLoop<ClaimedJob>({
    concurrency: CONCURRENCY,
    claim: () => claimDueJob({ db, workerId: relayId }),
    run: relay,
    subscribe: onJobEnqueued,
    pollIntervalMs: POLL_INTERVAL_MS,
    onClaimError: (error) => log.error({ err: error }, 'failed to read the job outbox'),
    onRunError: (error, row) => log.error({ err: error, jobId: row.id }, 'job outbox bookkeeping failed'),
  });
  return {
    stop: (graceMs) => {
      clearInterval(reconcileTimer);
      return loop.stop(graceMs);
    },
  };
};
