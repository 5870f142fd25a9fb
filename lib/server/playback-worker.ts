import http from 'node:http';
import type { AppToWorker, ServedFile, WorkerToApp } from '../http/edge/edge-protocol';
import { compileTrustedProxies } from '../http/edge/client-address';
import { createPlaybackWorkerHandler } from '../http/edge/playback-worker-server';
import { WorkerAnswerCache } from '../http/edge/worker-answer-cache';
import { HttpRequestTally } from '../metrics/http-request-tally';

// A playback worker process, forked by the app (lib/server/playback-workers.ts) through Node's
// cluster module: it listens on the public port (the app process accepts, the workers take turns),
// answers what it can by itself and forwards the rest to the app's private socket. Its settings
// come from the app, not from the operator's environment. It ends when told to, on SIGTERM, or when
// the app is gone (its IPC channel closes).

type WorkerSettings = {
  port: number;
  host: string;
  appSocketPath: string;
  cacheMaxBytes: number;
  cacheTtlMs: number;
  memoryCacheBytes: number;
  trustedProxies: string[];
};

// Written by the app (lib/server/playback-workers.ts), not by an operator; checked by hand rather
// than with zod, whose import alone costs each worker ~13 MB of resident memory.
const readSettings = (raw: string | undefined): WorkerSettings => {
  const parsed = JSON.parse(raw ?? 'null') as Partial<WorkerSettings> | null;
  const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
  if (
    !parsed ||
    !isCount(parsed.port) ||
    typeof parsed.host !== 'string' ||
    typeof parsed.appSocketPath !== 'string' ||
    !isCount(parsed.cacheMaxBytes) ||
    !isCount(parsed.cacheTtlMs) ||
    !isCount(parsed.memoryCacheBytes) ||
    !Array.isArray(parsed.trustedProxies) ||
    !parsed.trustedProxies.every((entry) => typeof entry === 'string')
  ) {
    throw new Error('KEYFRAME_PLAYBACK_WORKER is not a valid settings object (this process is started by the Keyframe server)');
  }
  return parsed as WorkerSettings;
};

const TALLY_INTERVAL_MS = 1_000;
// Soon enough that the app's prefetch of a viewer's next segment starts about when it would have.
const SERVED_REPORT_INTERVAL_MS = 50;
const DRAIN_DEADLINE_MS = 8_000;

const send = (message: WorkerToApp) => {
  if (process.connected) process.send?.(message);
};

const main = () => {
  const settings = readSettings(process.env.KEYFRAME_PLAYBACK_WORKER);
  const cache = new WorkerAnswerCache({ maxBytes: settings.cacheMaxBytes, ttlMs: settings.cacheTtlMs });
  const tally = new HttpRequestTally();
  const report = (message: string, error: unknown) => {
    // The app logs; a worker writes one JSON line in the same shape to stderr.
    process.stderr.write(`${JSON.stringify({ level: 50, time: Date.now(), pid: process.pid, component: 'playback-worker', msg: message, err: String(error) })}\n`);
  };
  let served: ServedFile[] = [];
  const reportServed = () => {
    if (served.length === 0) return;
    send({ type: 'served', files: served });
    served = [];
  };
  const servedTimer = setInterval(reportServed, SERVED_REPORT_INTERVAL_MS);
  const { handle, forget, close } = createPlaybackWorkerHandler({
    appSocketPath: settings.appSocketPath,
    cache,
    tally,
    memoryCacheBytes: settings.memoryCacheBytes,
    trustedProxies: compileTrustedProxies(settings.trustedProxies),
    onServedFile: (file) => served.push(file),
    onError: report,
  });
  const server = http.createServer(handle);
  // Answered 100 Continue only when the app does (an upload it would refuse is refused at once).
  server.on('checkContinue', handle);
  server.keepAliveTimeout = 65_000;

  const flushTally = () => {
    const snapshot = tally.drain();
    if (snapshot.length > 0) send({ type: 'tally', snapshot });
  };
  const tallyTimer = setInterval(flushTally, TALLY_INTERVAL_MS);

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    clearInterval(tallyTimer);
    clearInterval(servedTimer);
    flushTally();
    reportServed();
    server.close(() => {
      close();
      process.exit(0);
    });
    server.closeIdleConnections();
    setTimeout(() => {
      server.closeAllConnections();
      process.exit(0);
    }, DRAIN_DEADLINE_MS).unref();
  };

  process.on('message', (message: AppToWorker) => {
    switch (message.type) {
      case 'forget':
        forget(message.what);
        send({ type: 'forgot', id: message.id });
        return;
      case 'multivariants':
        cache.allowMultivariants(message.cacheable);
        return;
      case 'stop':
        stop();
        return;
    }
  });
  process.on('disconnect', stop);
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // The app process reports a worker that exits before listening, and then fails to start.
  server.once('error', (error: NodeJS.ErrnoException) => {
    process.stderr.write(`playback worker could not listen on ${settings.host}:${settings.port}: ${error.message}\n`);
    process.exit(1);
  });
  server.listen(settings.port, settings.host);
};

main();
