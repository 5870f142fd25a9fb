import cluster, { type Worker } from 'node:cluster';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { registerPlaybackWorkerForgetter, type PlaybackWorkerForget } from '../coordination/playback-worker-caches';
import type { AppToWorker, ServedFile, WorkerToApp } from '../http/edge/edge-protocol';
import { metricSet } from '../metrics/metric-set';

// The app's playback workers: processes without Next.js that hold the public port and answer cached
// playlists and stored files themselves (see lib/http/edge/). One Node process, carrying Next.js'
// async-context hooks on every request, answers a few hundred-byte playlist at a fraction of
// nginx's rate on the same cores; workers without them, one per core, come close to it. The app
// stays the only process that decides anything: workers keep what it marked cacheable, drop it
// when told (awaited before a DELETE answers), and forward everything else over a Unix socket.

const FORGET_ACK_TIMEOUT_MS = 2_000;
const RESTART_DELAY_MS = 1_000;
const LOAD_CHECK_INTERVAL_MS = 50;
const STOP_DEADLINE_MS = 9_000;

export type PlaybackWorkers = { stop: () => Promise<void> };

// The bundle (.next/keyframe/server.mjs) has its worker next to it; from source, tsx runs the .ts.
const workerEntry = (): { exec: string; execArgv: string[] } => {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) return { exec: path.join(path.dirname(here), 'playback-worker.ts'), execArgv: ['--import', 'tsx'] };
  return { exec: path.join(path.dirname(here), 'playback-worker.mjs'), execArgv: ['--max-semi-space-size=2'] };
};

export const startPlaybackWorkers = async ({
  count,
  memoryCacheBytes,
  port,
  host,
  appSocketPath,
  trustedProxies,
  multivariantsCacheable,
  noteServedFiles,
  log,
}: {
  count: number;
  /** Bytes of hot stored files each worker keeps in memory. */
  memoryCacheBytes: number;
  port: number;
  host: string;
  appSocketPath: string;
  /** TRUSTED_PROXIES: the workers resolve each client's address and pass it on. */
  trustedProxies: string[];
  /** Whether a multivariant playlist answered from memory may be answered by a worker now. */
  multivariantsCacheable: () => boolean;
  /** Stored segments the workers sent from their own caches. */
  noteServedFiles: (files: ServedFile[]) => void;
  log: Logger;
}): Promise<PlaybackWorkers> => {
  const settings = JSON.stringify({ port, host, appSocketPath, cacheMaxBytes: 32 * 1024 * 1024, cacheTtlMs: 10_000, memoryCacheBytes, trustedProxies });
  cluster.setupPrimary({ ...workerEntry(), silent: false });
  const workers = new Set<Worker>();
  const pendingForgets = new Map<number, { waitingFor: Set<Worker>; done: () => void }>();
  let nextForgetId = 1;
  let stopping = false;
  let multivariants = false;

  const tell = (worker: Worker, message: AppToWorker) => {
    if (worker.isConnected()) worker.send(message);
  };

  const settleForget = (id: number, worker: Worker) => {
    const pending = pendingForgets.get(id);
    if (!pending) return;
    pending.waitingFor.delete(worker);
    if (pending.waitingFor.size === 0) pending.done();
  };

  const fork = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const worker = cluster.fork({ KEYFRAME_PLAYBACK_WORKER: settings });
      workers.add(worker);
      worker.on('message', (message: WorkerToApp) => {
        if (message.type === 'forgot') settleForget(message.id, worker);
        else if (message.type === 'tally') metricSet().httpRequests.merge(message.snapshot);
        else if (message.type === 'served') noteServedFiles(message.files);
      });
      worker.once('listening', () => {
        tell(worker, { type: 'multivariants', cacheable: multivariants });
        resolve();
      });
      worker.once('exit', (code, signal) => {
        workers.delete(worker);
        // A worker that is gone holds nothing to forget.
        for (const id of pendingForgets.keys()) settleForget(id, worker);
        reject(new Error(`playback worker exited before listening (code ${code}, signal ${signal})`));
        if (stopping) return;
        log.error({ pid: worker.process.pid, code, signal }, 'a playback worker exited; starting another');
        setTimeout(() => void fork().catch((error: unknown) => log.error({ err: error }, 'restarting a playback worker failed')), RESTART_DELAY_MS).unref();
      });
    });

  await Promise.all(Array.from({ length: count }, fork));

  const loadCheck = setInterval(() => {
    const cacheable = multivariantsCacheable();
    if (cacheable === multivariants) return;
    multivariants = cacheable;
    for (const worker of workers) tell(worker, { type: 'multivariants', cacheable });
  }, LOAD_CHECK_INTERVAL_MS);
  loadCheck.unref();

  registerPlaybackWorkerForgetter(
    (what: PlaybackWorkerForget) =>
      new Promise<void>((resolve) => {
        const id = nextForgetId++;
        const waitingFor = new Set([...workers].filter((worker) => worker.isConnected()));
        if (waitingFor.size === 0) return resolve();
        const timer = setTimeout(() => {
          // A worker that does not answer within the deadline is replaced: it may hold the entry.
          log.error({ what, workers: [...waitingFor].map((worker) => worker.process.pid) }, 'a playback worker did not confirm a forget; replacing it');
          for (const worker of waitingFor) worker.process.kill('SIGKILL');
          done();
        }, FORGET_ACK_TIMEOUT_MS);
        const done = () => {
          clearTimeout(timer);
          pendingForgets.delete(id);
          resolve();
        };
        pendingForgets.set(id, { waitingFor, done });
        for (const worker of waitingFor) tell(worker, { type: 'forget', id, what });
      }),
  );

  log.info({ workers: count, port }, 'playback workers are listening');

  return {
    stop: async () => {
      stopping = true;
      clearInterval(loadCheck);
      registerPlaybackWorkerForgetter(null);
      const exits = [...workers].map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.isDead()) return resolve();
            worker.once('exit', () => resolve());
            tell(worker, { type: 'stop' });
            setTimeout(() => {
              worker.process.kill('SIGKILL');
              resolve();
            }, STOP_DEADLINE_MS).unref();
          }),
      );
      await Promise.all(exits);
    },
  };
};
