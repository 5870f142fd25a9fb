import pino from 'pino';
import { z } from 'zod';
import { defineJob } from '../jobs/define-job';
import { startBullmqWorker } from './bullmq-worker';

// A worker process for bullmq-jobs.test.ts to kill with SIGKILL: it takes `hang-job`, says so on
// stdout, and never finishes it. Arguments: the Redis URL and the key prefix.

const [url, keyPrefix] = process.argv.slice(2);
if (!url || !keyPrefix) throw new Error('usage: kill-test-worker.fixture.ts <redis-url> <key-prefix>');

startBullmqWorker({
  config: { url, keyPrefix },
  log: pino({ level: 'silent' }),
  timing: { lockDurationMs: 1_500, stalledCheckIntervalMs: 500 },
  definitions: {
    'hang-job': defineJob({
      name: 'hang-job',
      payloadSchema: z.object({ label: z.string() }),
      maxAttempts: 3,
      slots: { name: 'kill-test', size: () => 1 },
      run: async ({ label }, { attempt }) => {
        process.stdout.write(`started ${label} attempt ${attempt}\n`);
        await new Promise(() => undefined);
      },
    }),
  },
});
process.stdout.write('ready\n');
