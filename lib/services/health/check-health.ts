import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { checkMediaTool, type MediaToolCheck } from '../../media/tool-check';
import type { ServerState } from '../../runtime/server-state';
import { childProcesses } from '../processes/child-processes';
import { checkSharedStorage, type StorageCheck } from '../storage/check-shared-storage';
import { sharedStore } from '../storage/shared-storage';
import { checkDisk, type DiskCheck } from './check-disk';
import { healthCaches } from './health-caches';

export type HealthReport = {
  ok: boolean;
  checks: {
    database: { ok: boolean; reason?: string };
    ffmpeg: MediaToolCheck;
    ffprobe: MediaToolCheck;
    /** Room to write on DATA_DIR's disk (the cache of the bucket, with S3). */
    disk: DiskCheck;
    /** Only with S3 storage. */
    storage?: StorageCheck;
  };
};

const TOOL_CHECK_TTL_MS = 30_000;

// A load balancer gives up on a health check after a few seconds: a dependency that hangs (a
// frozen database, a stalled bucket) must make this answer 503 in time, not time it out.
export const HEALTH_CHECK_DEADLINE_MS = 2_000;

const withinDeadline = async <T>(check: Promise<T>, timedOut: T): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(timedOut), HEALTH_CHECK_DEADLINE_MS);
  });
  try {
    return await Promise.race([check, deadline]);
  } finally {
    clearTimeout(timer);
  }
};

const noAnswer = (what: string) => `${what} did not answer within ${HEALTH_CHECK_DEADLINE_MS / 1000} s`;

const cachedToolCheck = async (toolPath: string): Promise<MediaToolCheck> => {
  const cache = healthCaches().toolChecks;
  const hit = cache.get(toolPath);
  if (hit && Date.now() - hit.at < TOOL_CHECK_TTL_MS) return hit.result;
  const result = await checkMediaTool(toolPath, childProcesses());
  cache.set(toolPath, { at: Date.now(), result });
  return result;
};

const checkDatabase = async (server: ServerState): Promise<{ ok: boolean; reason?: string }> => {
  if (!server.migrationsApplied) return { ok: false, reason: 'database migrations have not been applied yet' };
  try {
    await getDb().$queryRawUnsafe('SELECT 1');
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: `database query failed: ${error instanceof Error ? error.message : String(error)}` };
  }
};

// Each check writes an object: a passed check is kept for the TTL however often the health URL is
// polled; a failed one only until the next poll, so a node is back in its balancer as soon as the
// bucket answers again. A check in flight is shared by every poll (one hung request, not one per poll).
const cachedStorageCheck = (): Promise<StorageCheck | null> => {
  const cache = healthCaches().storageCheck;
  if (!cache.result || Date.now() - cache.at >= TOOL_CHECK_TTL_MS || cache.failed) {
    cache.at = Date.now();
    cache.failed = false;
    const check = checkSharedStorage();
    cache.result = check;
    void check.then((result) => {
      if (cache.result === check) cache.failed = result?.ok === false;
    });
  }
  return cache.result;
};

/** `server`: what the server entry knows (lib/runtime/server-state.ts), passed in by the caller. */
export const checkHealth = async (server: ServerState): Promise<HealthReport> => {
  const env = getEnv();
  const [database, ffmpeg, ffprobe, disk, storage] = await Promise.all([
    withinDeadline(checkDatabase(server), { ok: false, reason: noAnswer('the database') }),
    cachedToolCheck(env.ffmpegPath),
    cachedToolCheck(env.ffprobePath),
    withinDeadline(checkDisk(env.dataDir, env.healthMinFreeDiskBytes), { ok: false, reason: noAnswer("DATA_DIR's disk") }),
    withinDeadline(cachedStorageCheck(), { ok: false, bucket: sharedStore()?.bucket ?? '', reason: noAnswer('object storage') }),
  ]);
  return {
    ok: database.ok && ffmpeg.ok && ffprobe.ok && disk.ok && (storage?.ok ?? true) && !server.shuttingDown,
    checks: { database, ffmpeg, ffprobe, disk, ...(storage ? { storage } : {}) },
  };
};
