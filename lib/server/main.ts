import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import next from 'next';
import type { Logger } from 'pino';
import { adoptInstallationSecrets, instanceSecrets } from '../auth/instance-secrets';
import { getDb } from '../db/client';
import { getEnv, type Env } from '../env';
import { serveMetrics } from '../http/metrics/serve-metrics';
import { isBeaconRequest, serveBeacon } from '../http/analytics/serve-beacon';
import { acceptWorkerRequest } from '../http/edge/from-playback-worker';
import { servePlayback } from '../http/playback/serve-playback';
import { applicationRouteClass, countHttpRequest } from '../http/metrics/request-metrics';
import { recoverInterruptedJobs } from '../jobs/queue';
import { startJobProcessing } from '../worker/start-job-processing';
import { startWebhookDispatcher } from '../worker/webhook-dispatcher';
import { getLogger } from '../log';
import { metricSet } from '../metrics/metric-set';
import { collector } from '../services/analytics/collector';
import { closeInactiveViews, deleteViewsEndedBefore } from '../services/analytics/view-store';
import { deleteExpiredTestAssets } from '../services/assets/delete-expired-test-assets';
import { startLadderFill } from '../services/playback/fill-ladders';
import { startLiveRuntime } from '../services/live/live-runtime';
import { childProcesses } from '../services/processes/child-processes';
import { multivariantsSteadyForNewViewers } from '../services/playback/get-multivariant-playlist';
import { noteFileServedByWorker } from '../services/playback/get-rendition-file';
import { isEvictableSegment, segmentCache } from '../services/playback/runtime';
import { expireDueUploads } from '../services/uploads/expire-uploads';
import { dropLeftoverUploadCopies } from '../services/uploads/shared-upload-parts';
import { expireDueMasters } from '../services/master/master-state';
import { recoverInterruptedWebhookDeliveries } from '../services/webhooks/webhook-delivery-queue';
import { startHealthListener } from './health-listener';
import { startPlaybackWorkers, type PlaybackWorkers } from './playback-workers';
import { prepareDatabaseThroughOutage, verifyStorageThroughOutage } from './startup-outages';
import { defaultSlatePath, projectRoot } from './project-root';
import { startNodeEvents } from './start-node-events';
import { listen } from '../utils/listen';
import { hasNodeRuntime, installNodeRuntime } from '../runtime/node-runtime';
import { serverState } from '../runtime/server-state';
import { createNodeRuntime } from './create-node-runtime';

// The process `npm start` runs. KEYFRAME_ROLE picks its parts: `all` (the default) runs everything
// in one process; `http` the playback host and the Next.js app (API, pages); `worker` the job
// worker, the webhook dispatcher and maintenance, behind a listener that answers only the health
// check. Shutdown leaves no half-done work behind in every role.

const SHUTDOWN_DEADLINE_MS = 13_000;
const JOB_GRACE_MS = 8_000;
const MAINTENANCE_INTERVAL_MS = 60_000;

type AppServer = { server: http.Server; playbackWorkers: PlaybackWorkers | null };

// With playback workers (PLAYBACK_WORKERS > 0) they hold the public port and this process listens
// on a private Unix socket only they reach; without, this process holds the port itself.
const startAppServer = async (env: Env, log: Logger): Promise<AppServer> => {
  const app = next({ dev: false, dir: projectRoot, hostname: env.host, port: env.port });
  await app.prepare();
  const handle = app.getRequestHandler();
  const behindWorkers = env.playbackWorkers > 0;
  const server = http.createServer((request, response) => {
    if (behindWorkers) acceptWorkerRequest(request);
    // mux-embed beacons (POST /, see serve-beacon.ts) are answered before anything else.
    if (isBeaconRequest(request)) return serveBeacon(request, response);
    // The playback host is answered here, before Next.js routing: see serve-playback.ts. It counts
    // its own requests; the rest are counted here.
    if (servePlayback(request, response)) return;
    const routeClass = applicationRouteClass(request.url);
    countHttpRequest(response, routeClass);
    if (routeClass === 'metrics') return serveMetrics(request, response);
    handle(request, response).catch((error: unknown) => {
      log.error({ err: error, url: request.url }, 'request failed');
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  if (!behindWorkers) {
    server.keepAliveTimeout = 65_000;
    await listen(server, { port: env.port, host: env.host });
    return { server, playbackWorkers: null };
  }
  // Longer than the workers keep an idle connection to it, so the app never closes one under a request.
  server.keepAliveTimeout = 10 * 60_000;
  const appSocketPath = path.join(os.tmpdir(), `keyframe-app-${process.pid}.sock`);
  rmSync(appSocketPath, { force: true });
  await listen(server, { path: appSocketPath });
  chmodSync(appSocketPath, 0o600);
  const playbackWorkers = await startPlaybackWorkers({
    count: env.playbackWorkers,
    memoryCacheBytes: env.playbackWorkerMemoryCacheBytes,
    port: env.port,
    host: env.host,
    appSocketPath,
    trustedProxies: env.trustedProxies,
    multivariantsCacheable: () => multivariantsSteadyForNewViewers(),
    noteServedFiles: (files) => {
      for (const file of files) noteFileServedByWorker(file);
    },
    log: log.child({ component: 'playback-workers' }),
  });
  return { server, playbackWorkers };
};

// Deleting expired test assets and timing out uploads run on the nodes that work (the one process,
// or each worker). They need no single owner: a delete or an expiry that another worker got to
// first finds the row gone or changed and does nothing twice. Nodes that receive uploads remove
// their copies of uploads that ended on another node.
const startMaintenance = (log: Logger, { works, receivesUploads }: { works: boolean; receivesUploads: boolean }): (() => void) => {
  const runMaintenance = () =>
    Promise.all([
      works && deleteExpiredTestAssets().then((count) => count > 0 && log.info({ count }, 'deleted expired test assets')),
      works && expireDueUploads().then((count) => count > 0 && log.info({ count }, 'direct uploads timed out')),
      works && expireDueMasters().then((count) => count > 0 && log.info({ count }, 'temporary masters expired')),
      receivesUploads && dropLeftoverUploadCopies().then((count) => count > 0 && log.info({ count }, 'removed copies of uploads that ended elsewhere')),
      works && maintainPlaybackViews(log),
    ]).catch((error: unknown) => log.error({ err: error }, 'maintenance failed'));
  void runMaintenance();
  const maintenance = setInterval(runMaintenance, MAINTENANCE_INTERVAL_MS);
  return () => clearInterval(maintenance);
};

// Views whose player went quiet are closed; views older than the retention are deleted.
const maintainPlaybackViews = async (log: Logger) => {
  const { viewInactivityMs, retentionDays } = getEnv().data;
  const closed = await closeInactiveViews(new Date(Date.now() - viewInactivityMs));
  const deleted = await deleteViewsEndedBefore(new Date(Date.now() - retentionDays * 86_400_000));
  if (closed > 0 || deleted > 0) log.info({ closed, deleted }, 'playback views closed for inactivity / past retention');
};

const main = async () => {
  installNodeRuntime(createNodeRuntime());
  const env = getEnv();
  const log = getLogger().child({ role: env.role });
  const servesApp = env.role !== 'worker';
  const works = env.role !== 'http';
  // Made now rather than on the first request, so the process metrics (CPU, event loop lag) cover startup.
  metricSet();
  mkdirSync(env.dataDir, { recursive: true });
  // Created now rather than on first use, so the keys exist (and can be backed up) from the start.
  instanceSecrets(env.dataDir);

  const migrations = await prepareDatabaseThroughOutage(env, log);
  const secrets = await adoptInstallationSecrets(env.dataDir);
  if (secrets.changed) log.info('adopted the installation secrets stored in the database');
  serverState().migrationsApplied = true;
  log.info({ applied: migrations.applied, database: env.database.label }, 'database ready');

  const bucket = await verifyStorageThroughOutage(log);
  if (bucket) log.info({ bucket, endpoint: env.storage.driver === 's3' ? (env.storage.endpoint ?? 'AWS') : undefined }, 'S3 storage ready');

  await segmentCache().rebuildFromDisk(path.join(env.dataDir, 'assets'), isEvictableSegment);

  if (works) {
    const recovered = await recoverInterruptedJobs();
    if (recovered > 0) log.info({ recovered }, 'resuming jobs interrupted by the previous run');
  }
  // A delivery marked `sending` is only known to be abandoned when this process is the only
  // dispatcher; with several nodes it may be in flight on another one.
  if (env.role === 'all') {
    const resent = await recoverInterruptedWebhookDeliveries();
    if (resent > 0) log.info({ resent }, 'resending webhook deliveries interrupted by the previous run');
  }

  const stopNodeEvents = await startNodeEvents();
  const { server, playbackWorkers } = servesApp
    ? await startAppServer(env, log)
    : { server: await startHealthListener({ port: env.port, host: env.host }), playbackWorkers: null };

  // With Redis every role starts it: app nodes relay the jobs their requests commit.
  const jobs = startJobProcessing({ env, log: log.child({ component: 'worker' }), runsJobs: works });
  const webhooks = works
    ? startWebhookDispatcher({ timeoutMs: env.webhookTimeoutMs, retryBaseMs: env.webhookRetryBaseMs, log: log.child({ component: 'webhooks' }) })
    : null;
  // Idle encoders fill in the ladders of the assets people watch (see fill-ladders.ts). What is
  // watched, and the rendition cache filled, are this node's: it runs where playback is served.
  const ladderFill = servesApp && env.fillIdleEncoders ? startLadderFill({ log: log.child({ component: 'ladder-fill' }) }) : null;
  const stopMaintenance = startMaintenance(log, { works, receivesUploads: servesApp });
  const beacons = servesApp ? collector(() => log.child({ component: 'collector' })) : null;
  beacons?.start();
  // Live ingest runs where playback is served: the broadcast's playlists are answered from its memory.
  const live = servesApp
    ? await startLiveRuntime({ env, log: log.child({ component: 'live' }), defaultSlatePath }).catch((error: unknown) => {
        log.error({ err: error }, 'live ingest is off on this node: the RTMP server could not start (RTMP_PORT in use?)');
        return null;
      })
    : null;

  log.info({ url: env.baseUrl, port: env.port, dataDir: env.dataDir }, servesApp ? 'Keyframe is listening' : 'Keyframe worker is running');

  let shuttingDown = false;
  const shutdown = async (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    serverState().shuttingDown = true;
    log.info({ signal }, 'shutting down');
    const hardExit = setTimeout(() => {
      childProcesses().killAll();
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS);
    hardExit.unref();
    stopMaintenance();
    ladderFill?.stop();
    server.close();
    server.closeIdleConnections();
    // In-flight webhook requests are aborted and go back to pending without counting an attempt.
    // Workers stop taking connections at once and finish the requests they are forwarding here.
    await Promise.all([jobs?.stop(JOB_GRACE_MS), webhooks?.stop(JOB_GRACE_MS), playbackWorkers?.stop(), live?.close()]);
    // After the workers stopped forwarding: the beacons they passed on are written too.
    await beacons?.stop().catch((error: unknown) => log.error({ err: error }, 'writing playback views at shutdown failed'));
    childProcesses().killAll();
    await stopNodeEvents();
    server.closeAllConnections();
    await getDb().$disconnect();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
};

main().catch((error: unknown) => {
  if (!hasNodeRuntime()) installNodeRuntime(createNodeRuntime());
  getLogger().fatal({ err: error }, 'Keyframe failed to start');
  process.exit(1);
});
