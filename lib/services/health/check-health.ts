import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { checkMediaTool, type MediaToolCheck } from '../../media/tool-check';
import type { ServerState } from '../../runtime/server-state';
import { childProcesses } from '../processes/child-processes';
import { checkSharedStorage, type StorageCheck } from '../storage/check-shared-storage';
import { healthCaches } from './health-caches';

export type HealthReport = {
  ok: boolean;
  checks: {
    database: { ok: boolean; reason?: string };
    ffmpeg: MediaToolCheck;
    ffprobe: MediaToolCheck;
    /** Only with S3 storage (local disk needs no check beyond DATA_DIR existing). */
    storage?: StorageCheck;
  };
};

const TOOL_CHECK_TTL_MS = 30_000;

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

// Each check writes an object: at most one every TTL however often the health URL is polled.
const cachedStorageCheck = (): Promise<StorageCheck | null> => {
  const cache = healthCaches().storageCheck;
  if (!cache.result || Date.now() - cache.at >= TOOL_CHECK_TTL_MS) {
    cache.at = Date.now();
    cache.result = checkSharedStorage();
  }
  return cache.result;
};

/** `server`: what the server entry knows (lib/runtime/server-state.ts), passed in by the caller. */
export const checkHealth = async (server: ServerState): Promise<HealthReport> => {
  const env = getEnv();
  const [database, ffmpeg, ffprobe, storage] = await Promise.all([
    checkDatabase(server),
    cachedToolCheck(env.ffmpegPath),
    cachedToolCheck(env.ffprobePath),
    cachedStorageCheck(),
  ]);
  return {
    ok: database.ok && ffmpeg.ok && ffprobe.ok && (storage?.ok ?? true) && !server.shuttingDown,
    checks: { database, ffmpeg, ffprobe, ...(storage ? { storage } : {}) },
  };
};
