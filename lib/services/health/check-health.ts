import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { checkMediaTool, type MediaToolCheck } from '../../media/tool-check';
import { serverState } from '../../server/server-state';
import { processSingleton } from '../../utils/process-singleton';
import { checkSharedStorage, type StorageCheck } from '../storage/check-shared-storage';

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
const toolChecks = () => processSingleton('tool-checks', () => new Map<string, { at: number; result: MediaToolCheck }>());

const cachedToolCheck = async (toolPath: string): Promise<MediaToolCheck> => {
  const cache = toolChecks();
  const hit = cache.get(toolPath);
  if (hit && Date.now() - hit.at < TOOL_CHECK_TTL_MS) return hit.result;
  const result = await checkMediaTool(toolPath);
  cache.set(toolPath, { at: Date.now(), result });
  return result;
};

const checkDatabase = async (): Promise<{ ok: boolean; reason?: string }> => {
  if (!serverState().migrationsApplied) return { ok: false, reason: 'database migrations have not been applied yet' };
  try {
    await getDb().$queryRawUnsafe('SELECT 1');
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: `database query failed: ${error instanceof Error ? error.message : String(error)}` };
  }
};

// Each check writes an object: at most one every TTL however often the health URL is polled.
const storageCheck = () => processSingleton('storage-check', () => ({ at: 0, result: null as Promise<StorageCheck | null> | null }));
const cachedStorageCheck = (): Promise<StorageCheck | null> => {
  const cache = storageCheck();
  if (!cache.result || Date.now() - cache.at >= TOOL_CHECK_TTL_MS) {
    cache.at = Date.now();
    cache.result = checkSharedStorage();
  }
  return cache.result;
};

export const checkHealth = async (): Promise<HealthReport> => {
  const env = getEnv();
  const [database, ffmpeg, ffprobe, storage] = await Promise.all([
    checkDatabase(),
    cachedToolCheck(env.ffmpegPath),
    cachedToolCheck(env.ffprobePath),
    cachedStorageCheck(),
  ]);
  return {
    ok: database.ok && ffmpeg.ok && ffprobe.ok && (storage?.ok ?? true) && !serverState().shuttingDown,
    checks: { database, ffmpeg, ffprobe, ...(storage ? { storage } : {}) },
  };
};
