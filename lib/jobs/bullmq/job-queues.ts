import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { z } from 'zod';
import type { RedisConfig } from '../../env';
import { redisKey } from '../../coordination/redis-client';
import type { JobDefinition } from '../define-job';

// With REDIS_URL, jobs run from BullMQ queues: one queue per group of slots the job definitions
// name (kinds that share slots share a queue, so one worker concurrency bounds them together), the
// kind being the BullMQ job's name.

export type JobDefinitions = Record<string, JobDefinition<z.ZodType>>;

// BullMQ runs jobs without a priority before every prioritized one; every job gets this one, so
// jobs of a queue run in the order they were added, as in the database queue.
export const JOB_PRIORITY = 10;
const KEEP_COMPLETED_SECONDS = 24 * 60 * 60;
const KEEP_FAILED_SECONDS = 7 * 24 * 60 * 60;
// The custom backoff type: the delay comes from the worker's backoffStrategy (retryDelayMs).
export const RETRY_BACKOFF_TYPE = 'keyframe';

export const bullmqPrefix = (config: RedisConfig): string => redisKey(config, 'bull');

export const queueNameOf = (definitions: JobDefinitions, kind: string): string => {
  const definition = definitions[kind];
  if (!definition) throw new Error(`unknown job ${kind}`);
  return definition.slots.name;
};

export type QueuedJob = { id: string; name: string; payload: unknown; maxAttempts: number; dedupeKey: string | null };

/** Where a job added earlier is: still queued (waiting, delayed, running), finished, or not in Redis at all. */
export type QueuedJobState = 'queued' | 'finished' | 'missing';

export type JobQueues = {
  add: (job: QueuedJob) => Promise<void>;
  stateOf: (job: { id: string; name: string }) => Promise<QueuedJobState>;
  close: () => Promise<void>;
};

export const openJobQueues = ({ config, connection, definitions }: { config: RedisConfig; connection: Redis; definitions: JobDefinitions }): JobQueues => {
  const queues = new Map<string, Queue>();
  const queueFor = (kind: string) => {
    const name = queueNameOf(definitions, kind);
    let queue = queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection, prefix: bullmqPrefix(config) });
      queues.set(name, queue);
    }
    return queue;
  };
  return {
    add: async ({ id, name, payload, maxAttempts, dedupeKey }) => {
      await queueFor(name).add(name, payload, {
        // The outbox row's id: adding the same row again (a relay that died before deleting it)
        // finds the job already there.
        jobId: id,
        priority: JOB_PRIORITY,
        attempts: maxAttempts,
        backoff: { type: RETRY_BACKOFF_TYPE },
        // Deduplicated while the job waits or runs, not after: as the database queue's dedupeKey,
        // which is cleared when the job finishes.
        ...(dedupeKey && { deduplication: { id: dedupeKey } }),
        removeOnComplete: { age: KEEP_COMPLETED_SECONDS },
        removeOnFail: { age: KEEP_FAILED_SECONDS },
      });
    },
    stateOf: async ({ id, name }) => {
      const job = await queueFor(name).getJob(id);
      if (!job) return 'missing';
      const state = await job.getState();
      if (state === 'completed' || state === 'failed') return 'finished';
      return state === 'unknown' ? 'missing' : 'queued';
    },
    close: async () => {
      await Promise.all([...queues.values()].map((queue) => queue.close()));
    },
  };
};
