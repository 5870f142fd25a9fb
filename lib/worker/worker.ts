import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Logger } from 'pino';
import { recordJobRun, type WorkResult } from '../metrics/record';
import { jobRegistry, type JobName } from './registry';
import { claimNextJob, completeJob, failJob, OUTAGE_RETRY_DELAY_MS, postponeJob, releaseJob, renewLeases, waitsOutOutage, type JobRow } from '../jobs/queue';
import { JOB_LEASE_MS } from '../db/claim-job';
import { startClaimLoop } from './claim-loop';
import { planJobSlots } from './job-slots';
import { onJobEnqueued } from '../jobs/signals';

type RunningJob = { job: JobRow; controller: AbortController };

export type Worker = { stop: (graceMs: number) => Promise<void>; activeJobs: () => number };

const POLL_INTERVAL_MS = 1_000;
// Three renewals per lease: one slow database round trip does not cost a running job its lease.
const LEASE_RENEWAL_MS = JOB_LEASE_MS / 3;

const isJobName = (name: string): name is JobName => Object.hasOwn(jobRegistry, name);

// Runs queued jobs in this process, each kind within the slots its definition names (many ingests,
// few encodes). Stopping aborts running jobs and puts them back in the queue, so a restart resumes
// them. While a job runs its lease is renewed; a job whose lease was lost (this process stalled past
// it and another worker took the job over) is aborted here.
export const startWorker = ({ log }: { log: Logger }): Worker => {
  // The random part tells this run apart from an earlier one with the same pid (containers).
  const workerId = `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const slots = planJobSlots(Object.fromEntries(Object.entries(jobRegistry).map(([name, definition]) => [name, definition.slots])));
  let stopping = false;
  // Jobs aborted because another worker holds them now: their outcome is that worker's to record.
  const lostLeases = new Set<string>();

  const execute = async (job: JobRow, controller: AbortController) => {
    const jobLog = log.child({ job: job.name, jobId: job.id, attempt: job.attempts });
    if (!isJobName(job.name)) {
      await failJob(job, workerId, new Error(`unknown job ${job.name}`), { retry: false });
      return;
    }
    const definition = jobRegistry[job.name];
    const parsed = definition.payloadSchema.safeParse(JSON.parse(job.payloadJson));
    if (!parsed.success) {
      jobLog.error({ issues: parsed.error.issues }, 'invalid job payload; not retrying');
      await failJob(job, workerId, parsed.error, { retry: false });
      return;
    }
    const startedAt = performance.now();
    const ran = (result: WorkResult) => recordJobRun({ name: job.name, result, seconds: (performance.now() - startedAt) / 1000 });
    try {
      await definition.run(parsed.data as never, {
        signal: controller.signal,
        log: jobLog,
        attempt: job.attempts,
        maxAttempts: job.maxAttempts,
      });
      await completeJob(job, workerId);
      ran('ok');
    } catch (error) {
      if (lostLeases.delete(job.id)) {
        ran('cancelled');
        jobLog.warn('job stopped: its lease was lost to another worker');
        return;
      }
      if (stopping && controller.signal.aborted) {
        ran('cancelled');
        await releaseJob(job, workerId);
        return;
      }
      ran('error');
      if (waitsOutOutage(error, job.createdAt)) {
        jobLog.warn({ err: error, retryInMs: OUTAGE_RETRY_DELAY_MS }, 'job failed: a dependency is unavailable; trying again later without counting the attempt');
        await postponeJob(job, workerId, error);
        return;
      }
      const retry = job.attempts < job.maxAttempts;
      jobLog.warn({ err: error, retry }, 'job failed');
      await failJob(job, workerId, error, { retry });
      if (!retry) await definition.onGiveUp?.(parsed.data as never, error);
    }
  };

  const loop = startClaimLoop<RunningJob>({
    concurrency: slots.total,
    claim: async (running) => {
      const job = await claimNextJob(workerId, { excludeNames: slots.fullKinds(running.map(({ job: { name } }) => name)) });
      return job && { job, controller: new AbortController() };
    },
    run: ({ job, controller }) => execute(job, controller).finally(() => lostLeases.delete(job.id)),
    subscribe: onJobEnqueued,
    pollIntervalMs: POLL_INTERVAL_MS,
    onClaimError: (error) => log.error({ err: error }, 'failed to claim jobs'),
    onRunError: (error, { job }) => log.error({ err: error, jobId: job.id }, 'job bookkeeping failed'),
  });

  const renewal = setInterval(() => {
    const running = loop.running();
    renewLeases(workerId, running.map(({ job }) => job.id)).then(
      (lost) => {
        for (const { job, controller } of running) {
          if (!lost.includes(job.id) || controller.signal.aborted) continue;
          lostLeases.add(job.id);
          controller.abort(new Error('the job lease was lost to another worker'));
        }
      },
      (error: unknown) => log.error({ err: error }, 'failed to renew job leases'),
    );
  }, LEASE_RENEWAL_MS);

  return {
    activeJobs: () => loop.running().length,
    stop: async (graceMs) => {
      stopping = true;
      clearInterval(renewal);
      await loop.stop(graceMs, (running) => {
        for (const { controller } of running) controller.abort(new Error('server is shutting down'));
      });
    },
  };
};
