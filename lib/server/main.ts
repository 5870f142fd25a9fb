import { mkdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import next from 'next';
import { instanceSecrets } from '../auth/instance-secrets';
import { getDb } from '../db/client';
import { getEnv } from '../env';
import { servePlayback } from '../http/playback/serve-playback';
import { recoverInterruptedJobs } from '../jobs/queue';
import { startWorker } from '../jobs/worker';
import { startWebhookDispatcher } from '../jobs/webhook-dispatcher';
import { getLogger } from '../log';
import { killAllProcesses } from '../media/run-process';
import { deleteExpiredTestAssets } from '../services/assets/delete-expired-test-assets';
import { startLadderFill } from '../services/playback/fill-ladders';
import { isEvictableSegment, segmentCache } from '../services/playback/runtime';
import { checkSharedStorage } from '../services/storage/check-shared-storage';
import { expireDueUploads } from '../services/uploads/expire-uploads';
import { recoverInterruptedWebhookDeliveries } from '../services/webhooks/webhook-delivery-queue';
import { prepareDatabase } from './prepare-database';
import { projectRoot } from './project-root';
import { serverState } from './server-state';

// The process `npm start` runs: migrations, the playback host, the Next.js app (API, pages) and the
// in-process job worker, with a shutdown that leaves no half-done work behind.

const SHUTDOWN_DEADLINE_MS = 13_000;
const JOB_GRACE_MS = 8_000;
const MAINTENANCE_INTERVAL_MS = 60_000;

const main = async () => {
  const env = getEnv();
  const log = getLogger();
  mkdirSync(env.dataDir, { recursive: true });
  // Created now rather than on first use, so the keys exist (and can be backed up) from the start.
  instanceSecrets(env.dataDir);

  const migrations = await prepareDatabase(env);
  serverState().migrationsApplied = true;
  log.info({ applied: migrations.applied, database: env.database.label }, 'database ready');

  const storage = await checkSharedStorage();
  if (storage && !storage.ok) throw new Error(`S3 storage (bucket ${storage.bucket}) is not usable: ${storage.reason}`);
  if (storage) log.info({ bucket: storage.bucket, endpoint: env.storage.driver === 's3' ? (env.storage.endpoint ?? 'AWS') : undefined }, 'S3 storage ready');

  await segmentCache().rebuildFromDisk(path.join(env.dataDir, 'assets'), isEvictableSegment);

  const recovered = await recoverInterruptedJobs();
  if (recovered > 0) log.info({ recovered }, 'resuming jobs interrupted by the previous run');
  const resent = await recoverInterruptedWebhookDeliveries();
  if (resent > 0) log.info({ resent }, 'resending webhook deliveries interrupted by the previous run');

  const app = next({ dev: false, dir: projectRoot, hostname: env.host, port: env.port });
  await app.prepare();
  const handle = app.getRequestHandler();
  const server = http.createServer((request, response) => {
    // The playback host is answered here, before Next.js routing: see serve-playback.ts.
    if (servePlayback(request, response)) return;
    handle(request, response).catch((error: unknown) => {
      log.error({ err: error, url: request.url }, 'request failed');
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(env.port, env.host, resolve));

  const worker = startWorker({ log: log.child({ component: 'worker' }) });
  const webhooks = startWebhookDispatcher({
    timeoutMs: env.webhookTimeoutMs,
    retryBaseMs: env.webhookRetryBaseMs,
    log: log.child({ component: 'webhooks' }),
  });
  // Idle encoders fill in the ladders of the assets people watch (see fill-ladders.ts).
  const ladderFill = env.fillIdleEncoders ? startLadderFill({ log: log.child({ component: 'ladder-fill' }) }) : null;
  const runMaintenance = () =>
    Promise.all([
      deleteExpiredTestAssets().then((count) => count > 0 && log.info({ count }, 'deleted expired test assets')),
      expireDueUploads().then((count) => count > 0 && log.info({ count }, 'direct uploads timed out')),
    ]).catch((error: unknown) => log.error({ err: error }, 'maintenance failed'));
  void runMaintenance();
  const maintenance = setInterval(runMaintenance, MAINTENANCE_INTERVAL_MS);

  log.info({ url: env.baseUrl, port: env.port, dataDir: env.dataDir }, 'Keyframe is listening');

  let shuttingDown = false;
  const shutdown = async (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    serverState().shuttingDown = true;
    log.info({ signal }, 'shutting down');
    const hardExit = setTimeout(() => {
      killAllProcesses();
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS);
    hardExit.unref();
    clearInterval(maintenance);
    ladderFill?.stop();
    server.close();
    server.closeIdleConnections();
    // In-flight webhook requests are aborted and go back to pending without counting an attempt.
    await Promise.all([worker.stop(JOB_GRACE_MS), webhooks.stop(JOB_GRACE_MS)]);
    killAllProcesses();
    server.closeAllConnections();
    await getDb().$disconnect();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
};

main().catch((error: unknown) => {
  getLogger().fatal({ err: error }, 'Keyframe failed to start');
  process.exit(1);
});
