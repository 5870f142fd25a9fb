import os from 'node:os';
import type { Logger } from 'pino';
import { recordJobRun, type WorkResult } from '../metrics/record';
import { jobRegistry, type JobName } from './registry';
import { claimNextJob, completeJob, failJob, releaseJob, type JobRow } from './queue';
import { startClaimLoop } from './claim-loop';
import { planJobSlots } from './job-slots';
import { onJobEnqueued } from './signals';

type RunningJob = { job: JobRow; controller: AbortController };

export type Worker = { stop: (graceMs: number) => Promise<void>; activeJobs: () => number };

const POLL_INTERVAL_MS = 1_000;

const isJobName = (name: string): name is JobName => Object.hasOwn(jobRegistry, name);

// Runs queued jobs in this process, each kind within the slots its definition names (many ingests,
// few encodes). Stopping aborts running jobs and puts them back in the queue, so a restart resumes
// them.
export const startWorker = ({ log }: { log: Logger }): Worker => {
  const workerId = `${os.hostname()}:${process.pid}`;
  const slots = planJobSlots(Object.fromEntries(Object.entries(jobRegistry).map(([name, definition]) => [name, definition.slots])));
  let stopping = false;

  const execute = async (job: JobRow, controller: AbortController) => {
    const jobLog = log.child({ job: job.name, jobId: job.id, attempt: job.attempts });
    if (!isJobName(job.name)) {
      await failJob(job, new Error(`unknown job ${job.name}`), { retry: false });
      return;
    }
    const definition = jobRegistry[job.name];
    const parsed = definition.payloadSchema.safeParse(JSON.parse(job.payloadJson));
    if (!parsed.success) {
      jobLog.error({ issues: parsed.error.issues }, 'invalid job payload; not retrying');
      await failJob(job, parsed.error, { retry: false });
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
      await completeJob(job.id);
      ran('ok');
    } catch (error) {
      if (stopping && controller.signal.aborted) {
        ran('cancelled');
        await releaseJob(job);
        return;
      }
      ran('error');
      const retry = job.attempts < job.maxAttempts;
      jobLog.warn({ err: error, retry }, 'job failed');
      await failJob(job, error, { retry });
      if (!retry) await definition.onGiveUp?.(parsed.data as never, error);
    }
  };

  const loop = startClaimLoop<RunningJob>({
    concurrency: slots.total,
    claim: async (running) => {
      const job = await claimNextJob(workerId, { excludeNames: slots.fullKinds(running.map(({ job: { name } }) => name)) });
      return job && { job, controller: new AbortController() };
    },
    run: ({ job, controller }) => execute(job, controller),
    subscribe: onJobEnqueued,
    pollIntervalMs: POLL_INTERVAL_MS,
    onClaimError: (error) => log.error({ err: error }, 'failed to claim jobs'),
    onRunError: (error, { job }) => log.error({ err: error, jobId: job.id }, 'job bookkeeping failed'),
  });

  return {
    activeJobs: () => loop.running().length,
    stop: async (graceMs) => {
      stopping = true;
      await loop.stop(graceMs, (running) => {
        for (const { controller } of running) controller.abort(new Error('server is shutting down'));
      });
    },
  };
};
