import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import type { Db } from '../db/client';
import { createTestSqliteDatabase, migratedClients } from '../db/test-databases';
import { createTestRedis, isTestRedisReachable, type TestRedis } from '../coordination/test-redis';
import { createRedisClient } from '../coordination/redis-client';
import { defineJob, type JobContext } from '../jobs/define-job';
import { enqueueJob } from '../jobs/queue';
import { notifyJobEnqueued } from '../jobs/signals';
import { startBullmqWorker, type BullmqTiming } from './bullmq-worker';
import { openJobQueues, type JobDefinitions, type JobQueues } from '../jobs/bullmq/job-queues';
import { RELAYED, removeFinishedJob, startOutboxRelay } from './outbox-relay';

// The BullMQ backend against the real Redis at 127.0.0.1:6379, with job definitions made for the
// test (the queue is under test, not the jobs) and a key prefix per test.

const redisReachable = await isTestRedisReachable();
const log = pino({ level: 'silent' });
const FAST: BullmqTiming = { lockDurationMs: 1_500, stalledCheckIntervalMs: 500 };

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const testRedis = (): TestRedis => {
  const redis = createTestRedis();
  cleanups.push(redis.cleanup);
  return redis;
};

const queuesOn = (redis: TestRedis, definitions: JobDefinitions): JobQueues => {
  const connection = createRedisClient(redis.config, 'test-queues');
  const queues = openJobQueues({ config: redis.config, connection, definitions });
  cleanups.push(async () => {
    await queues.close();
    connection.disconnect();
  });
  return queues;
};

const workerOn = (redis: TestRedis, definitions: JobDefinitions, timing = FAST, db?: Db) => {
  // As start-job-processing.ts wires it: a finished job's outbox row goes.
  const onFinished = db ? (jobId: string) => removeFinishedJob(db, jobId) : undefined;
  const worker = startBullmqWorker({ config: redis.config, definitions, log, timing, onFinished });
  cleanups.push(() => worker.stop(100));
  return worker;
};

type Run = { label: string; attempt: number };

// A kind of job whose runs are recorded; `behave` decides what a run does.
const recordingJob = (behave: (run: Run, context: JobContext) => Promise<void> = async () => undefined) => {
  const runs: Run[] = [];
  const givenUp: string[] = [];
  const definition = defineJob({
    name: 'test-job',
    payloadSchema: z.object({ label: z.string() }),
    maxAttempts: 3,
    slots: { name: 'test-slots', size: () => 2 },
    run: async ({ label }, context) => {
      runs.push({ label, attempt: context.attempt });
      await behave({ label, attempt: context.attempt }, context);
    },
    onGiveUp: async ({ label }) => {
      givenUp.push(label);
    },
  });
  return { definitions: { 'test-job': definition } as JobDefinitions, runs, givenUp };
};

const until = async (condition: () => boolean | Promise<boolean>, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the condition');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!redisReachable)('jobs on BullMQ (Redis at 127.0.0.1:6379)', () => {
  test('a job enqueued in a transaction runs once after the commit; one whose transaction rolled back never runs', async () => {
    const redis = testRedis();
    const [db] = (await migratedClients(createTestSqliteDatabase, 1, cleanups)) as [Db];
    const { definitions, runs } = recordingJob();
    const relay = startOutboxRelay({ queues: queuesOn(redis, definitions), log, db });
    cleanups.push(() => relay.stop(100));
    workerOn(redis, definitions, FAST, db);

    await db.$transaction(async (tx) => {
      await enqueueJob({ transaction: tx, name: 'test-job', payload: { label: 'committed' }, maxAttempts: 3, dedupeKey: 'test:committed' });
    });
    await expect(
      db.$transaction(async (tx) => {
        await enqueueJob({ transaction: tx, name: 'test-job', payload: { label: 'rolled-back' }, maxAttempts: 3 });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    notifyJobEnqueued();

    await until(() => runs.length === 1);
    await until(async () => (await db.job.count()) === 0);
    await sleep(500);
    expect(runs).toEqual([{ label: 'committed', attempt: 1 }]);
  });

  test('jobs Redis lost (restarted empty) are relayed again from the outbox and run once; finished ones leave it', async () => {
    const redis = testRedis();
    const [db] = (await migratedClients(createTestSqliteDatabase, 1, cleanups)) as [Db];
    const { definitions, runs } = recordingJob();
    const relay = startOutboxRelay({ queues: queuesOn(redis, definitions), log, db, reconcile: { intervalMs: 100, afterMs: 200 } });
    cleanups.push(() => relay.stop(100));

    // Relayed while no worker runs: the job waits in Redis, its row stays in the outbox.
    await db.$transaction(async (tx) => enqueueJob({ transaction: tx, name: 'test-job', payload: { label: 'lost' }, maxAttempts: 3 }));
    notifyJobEnqueued();
    await until(async () => (await db.job.count({ where: { status: RELAYED } })) === 1);
    await redis.forgetEverything();

    // Found missing and relayed again (only then can the worker that comes up run it), then gone
    // from the outbox once it ran.
    await sleep(1_000);
    workerOn(redis, definitions, FAST, db);
    await until(() => runs.length === 1);
    await until(async () => (await db.job.count()) === 0);
    await sleep(500);
    expect(runs).toEqual([{ label: 'lost', attempt: 1 }]);
  });

  test('jobs with one dedupe key run once while one waits or runs, and again once it finished', async () => {
    const redis = testRedis();
    let release = () => undefined as void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const { definitions, runs } = recordingJob(async ({ label }) => {
      if (label === 'first') await released;
    });
    const queues = queuesOn(redis, definitions);
    workerOn(redis, definitions);

    await queues.add({ id: 'job-1', name: 'test-job', payload: { label: 'first' }, maxAttempts: 3, dedupeKey: 'same' });
    await until(() => runs.length === 1);
    await queues.add({ id: 'job-2', name: 'test-job', payload: { label: 'duplicate' }, maxAttempts: 3, dedupeKey: 'same' });
    // The same job again (a relay that died before deleting its outbox row).
    await queues.add({ id: 'job-1', name: 'test-job', payload: { label: 'first' }, maxAttempts: 3, dedupeKey: 'same' });
    await sleep(300);
    release();
    await sleep(300);
    expect(runs.map(({ label }) => label)).toEqual(['first']);

    await queues.add({ id: 'job-3', name: 'test-job', payload: { label: 'later' }, maxAttempts: 3, dedupeKey: 'same' });
    await until(() => runs.length === 2);
    expect(runs.map(({ label }) => label)).toEqual(['first', 'later']);
  });

  test('a failing job is retried after the database queue\'s backoff, then given up once', async () => {
    const redis = testRedis();
    const { definitions, runs, givenUp } = recordingJob(async () => {
      throw new Error('input unreadable');
    });
    const queues = queuesOn(redis, definitions);
    workerOn(redis, definitions);
    const startedAt = Date.now();

    await queues.add({ id: 'failing', name: 'test-job', payload: { label: 'failing' }, maxAttempts: 2, dedupeKey: null });
    await until(() => givenUp.length === 1);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(2_000);
    await sleep(300);
    expect(runs).toEqual([
      { label: 'failing', attempt: 1 },
      { label: 'failing', attempt: 2 },
    ]);
    expect(givenUp).toEqual(['failing']);
  });

  test('a job failing because a dependency is down is tried again without spending its attempts', async () => {
    const redis = testRedis();
    // A real "disk full" for the first three runs, as a node's cache disk filling up would give.
    const { definitions, runs, givenUp } = recordingJob(async () => {
      if (runs.length <= 3) await writeFile('/dev/full', 'segment bytes');
    });
    const queues = queuesOn(redis, definitions);
    workerOn(redis, definitions, { ...FAST, outageRetryDelayMs: 100 });

    await queues.add({ id: 'outage', name: 'test-job', payload: { label: 'outage' }, maxAttempts: 2, dedupeKey: null });
    await until(() => runs.length === 4);
    await sleep(300);
    expect(runs).toEqual(Array.from({ length: 4 }, () => ({ label: 'outage', attempt: 1 })));
    expect(givenUp).toEqual([]);
  });

  test('stopping a worker returns its running job to the queue without counting the attempt', async () => {
    const redis = testRedis();
    const first = recordingJob(
      (_run, { signal }) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error))),
    );
    const queues = queuesOn(redis, first.definitions);
    const stopping = startBullmqWorker({ config: redis.config, definitions: first.definitions, log, timing: FAST });

    await queues.add({ id: 'long', name: 'test-job', payload: { label: 'long' }, maxAttempts: 3, dedupeKey: 'long' });
    await until(() => first.runs.length === 1);
    const stopStartedAt = Date.now();
    await stopping.stop(5_000);
    expect(Date.now() - stopStartedAt).toBeLessThan(2_000);

    const second = recordingJob();
    workerOn(redis, second.definitions);
    await until(() => second.runs.length === 1, 3_000);
    expect(second.runs).toEqual([{ label: 'long', attempt: 1 }]);
  });

  test('a worker process killed with SIGKILL mid-job: another worker finishes the job', { timeout: 30_000 }, async () => {
    const redis = testRedis();
    const fixture = path.join(import.meta.dirname, 'kill-test-worker.fixture.ts');
    const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', fixture, redis.config.url, redis.config.keyPrefix], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    cleanups.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));

    const survivor = recordingJob();
    const definitions = { 'hang-job': { ...survivor.definitions['test-job']!, name: 'hang-job', slots: { name: 'kill-test', size: () => 1 } } };
    const queues = queuesOn(redis, definitions);
    await until(() => output.includes('ready'), 15_000);
    await queues.add({ id: 'doomed', name: 'hang-job', payload: { label: 'doomed' }, maxAttempts: 3, dedupeKey: 'doomed' });
    await until(() => output.includes('started doomed attempt 1'));

    // Another worker is up while the child holds the job: it must not take it (the child keeps its
    // lock renewed past several lock durations) until the child dies.
    workerOn(redis, definitions);
    await sleep(FAST.lockDurationMs * 2);
    expect(survivor.runs).toEqual([]);

    child.kill('SIGKILL');
    const killedAt = Date.now();
    await until(() => survivor.runs.length === 1, 10_000);
    expect(survivor.runs).toEqual([{ label: 'doomed', attempt: 2 }]);
    console.info(`job taken over ${Date.now() - killedAt} ms after the SIGKILL (lock ${FAST.lockDurationMs} ms, stalled check every ${FAST.stalledCheckIntervalMs} ms)`);
  });
});
