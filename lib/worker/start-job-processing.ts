import type { Logger } from 'pino';
import { createRedisClient } from '../coordination/redis-client';
import type { Env } from '../env';
import { openJobQueues } from '../jobs/bullmq/job-queues';
import { startBullmqWorker } from './bullmq-worker';
import { removeFinishedJob, startOutboxRelay } from './outbox-relay';
import { getDb } from '../db/client';
import { jobRegistry } from './registry';
import { startWorker } from './worker';

// Where jobs run. Without Redis: the database queue, worked by this process when it runs jobs.
// With REDIS_URL: BullMQ; every node relays the jobs it commits to the outbox (see
// outbox-relay.ts), and the nodes that run jobs work the queues.

export type JobProcessing = { stop: (graceMs: number) => Promise<void> };

export const startJobProcessing = ({ env, log, runsJobs }: { env: Env; log: Logger; runsJobs: boolean }): JobProcessing | null => {
  if (!env.redis) return runsJobs ? startWorker({ log }) : null;
  const connection = createRedisClient(env.redis, 'queues');
  const queues = openJobQueues({ config: env.redis, connection, definitions: jobRegistry });
  const relay = startOutboxRelay({ queues, log: log.child({ component: 'job-outbox' }) });
  const onFinished = (jobId: string) => removeFinishedJob(getDb(), jobId);
  const worker = runsJobs ? startBullmqWorker({ config: env.redis, definitions: jobRegistry, log, onFinished }) : null;
  return {
    stop: async (graceMs) => {
      await Promise.all([relay.stop(graceMs), worker?.stop(graceMs)]);
      await queues.close();
      connection.disconnect();
    },
  };
};
