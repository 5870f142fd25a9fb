import { DelayedError, UnrecoverableError, WaitingError, Worker as BullWorker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { createRedisClient } from '../coordination/redis-client';
import type { RedisConfig } from '../env';
import { OUTAGE_RETRY_DELAY_MS, retryDelayMs, waitsOutOutage } from '../jobs/queue';
import { bullmqPrefix, type JobDefinitions } from '../jobs/bullmq/job-queues';
import { recordJobRun, type WorkResult } from '../metrics/record';

// Runs the BullMQ queues' jobs in this process with the job definitions the database worker uses:
// one BullMQ worker per queue (group of slots), as many at once as the group has slots. What the
// database queue does with leases BullMQ does with job locks: a worker renews the lock of each job
// it runs, and a job whose lock ran out (its process was killed) is "stalled" and goes back to the
// queue for any worker on any node.
//
// Attempts count as in the database queue: every start that did not end in a retry-worthy failure
// or a graceful return is one (a failure, or a crash found as a stall). A job whose every attempt
// crashed its worker is given up before it starts again (onGiveUp), so a job that kills its worker
// cannot do so forever.

export type BullmqTiming = {
  /** How long a job's lock lasts without renewal; a killed worker's jobs are taken over after it. */
  lockDurationMs: number;
  /** How often each worker looks for stalled jobs (those whose lock ran out). */
  stalledCheckIntervalMs: number;
  /** How long a job that failed because a dependency is down waits before it runs again. */
  outageRetryDelayMs?: number;
};

// A killed worker's jobs are taken over at most lock + check (20 s) later. The lock is renewed every
// half of it (7.5 s), far more often than a busy node's event loop stalls; a node frozen longer
// (SIGSTOP, a paused VM) loses its jobs to another worker, and its own late result is refused with
// the lock it no longer holds.
export const DEFAULT_BULLMQ_TIMING: BullmqTiming = { lockDurationMs: 15_000, stalledCheckIntervalMs: 5_000, outageRetryDelayMs: OUTAGE_RETRY_DELAY_MS };

// Large enough never to apply: the attempt count below decides when a crashing job is given up.
const MAX_STALLS = 1_000;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export const startBullmqWorker = ({
  config,
  definitions,
  log,
  timing = DEFAULT_BULLMQ_TIMING,
  onFinished,
}: {
  config: RedisConfig;
  definitions: JobDefinitions;
  log: Logger;
  timing?: BullmqTiming;
  /** A job ran to its end (done, or given up): its outbox row can go (see outbox-relay.ts). */
  onFinished?: (jobId: string) => Promise<unknown>;
}): { stop: (graceMs: number) => Promise<void> } => {
  let stopping = false;
  const connection = createRedisClient(config, 'jobs');
  // Not fatal: a row left behind is found finished by the relays' reconciliation and removed then.
  const finished = async (job: Job) => {
    if (job.id) await onFinished?.(job.id).catch((error: unknown) => log.warn({ err: error, jobId: job.id }, 'removing a finished job from the outbox failed'));
  };

  const runJob = async (job: Job, token?: string, signal?: AbortSignal): Promise<void> => {
    const definition = definitions[job.name];
    if (!definition) throw new UnrecoverableError(`unknown job ${job.name}`);
    const maxAttempts = job.opts.attempts ?? 1;
    const attempt = job.attemptsMade + job.stalledCounter + 1;
    const jobLog = log.child({ job: job.name, jobId: job.id, attempt });
    const parsed = definition.payloadSchema.safeParse(job.data);
    if (!parsed.success) {
      jobLog.error({ issues: parsed.error.issues }, 'invalid job payload; not retrying');
      await finished(job);
      throw new UnrecoverableError(parsed.error.message);
    }
    const giveUp = async (error: unknown): Promise<never> => {
      try {
        await definition.onGiveUp?.(parsed.data, error);
      } catch (giveUpError) {
        jobLog.error({ err: giveUpError }, 'giving up on a job failed');
      }
      await finished(job);
      throw new UnrecoverableError(messageOf(error));
    };
    if (attempt > maxAttempts) {
      jobLog.warn('job stopped its worker on every attempt; giving up');
      return giveUp(new Error(`the worker running it stopped (crash or kill) on each of ${maxAttempts} attempts`));
    }
    const startedAt = performance.now();
    const ran = (result: WorkResult) => recordJobRun({ name: job.name, result, seconds: (performance.now() - startedAt) / 1000 });
    try {
      await definition.run(parsed.data, { signal: signal ?? new AbortController().signal, log: jobLog, attempt, maxAttempts });
      ran('ok');
      await finished(job);
    } catch (error) {
      if (stopping && signal?.aborted) {
        ran('cancelled');
        // Back to the queue without counting the attempt, for this or another worker to resume.
        await job.moveToWait(token);
        throw new WaitingError();
      }
      ran('error');
      if (waitsOutOutage(error, job.timestamp)) {
        const retryInMs = timing.outageRetryDelayMs ?? OUTAGE_RETRY_DELAY_MS;
        jobLog.warn({ err: error, retryInMs }, 'job failed: a dependency is unavailable; trying again later without counting the attempt');
        await job.moveToDelayed(Date.now() + retryInMs, token);
        throw new DelayedError();
      }
      const retry = attempt < maxAttempts;
      jobLog.warn({ err: error, retry }, 'job failed');
      if (!retry) return giveUp(error);
      throw error;
    }
  };

  const groups = new Map<string, { size: number }>();
  for (const definition of Object.values(definitions)) groups.set(definition.slots.name, { size: definition.slots.size() });
  const workers = [...groups].map(
    ([queueName, { size }]) =>
      new BullWorker(queueName, runJob, {
        connection,
        prefix: bullmqPrefix(config),
        concurrency: size,
        lockDuration: timing.lockDurationMs,
        stalledInterval: timing.stalledCheckIntervalMs,
        maxStalledCount: MAX_STALLS,
        settings: { backoffStrategy: (attemptsMade: number) => retryDelayMs(attemptsMade) },
      }),
  );
  for (const worker of workers) {
    worker.on('error', (error) => log.error({ err: error, queue: worker.name }, 'job queue error'));
    worker.on('stalled', (jobId) => log.warn({ jobId, queue: worker.name }, 'job stalled (its worker stopped); queued again'));
  }

  return {
    stop: async (graceMs) => {
      stopping = true;
      // Closing stops taking jobs and waits for the running ones, which the cancel makes return.
      const closed = Promise.all(workers.map((worker) => worker.close()));
      for (const worker of workers) worker.cancelAllJobs('server is shutting down');
      const timedOut = await Promise.race([
        closed.then(() => false),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(true), graceMs).unref()),
      ]);
      if (timedOut) await Promise.all(workers.map((worker) => worker.close(true)));
      connection.disconnect();
    },
  };
};
