import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { checkMediaTool, type MediaToolCheck } from '../../media/tool-check';
import { serverState } from '../../server/server-state';
import { processSingleton } from '../../utils/process-singleton';

export type HealthReport = {
  ok: boolean;
  checks: {
    database: { ok: boolean; reason?: string };
    ffmpeg: MediaToolCheck;
    ffprobe: MediaToolCheck;
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

export const checkHealth = async (): Promise<HealthReport> => {
  const env = getEnv();
  const [database, ffmpeg, ffprobe] = await Promise.all([
    checkDatabase(),
    cachedToolCheck(env.ffmpegPath),
    cachedToolCheck(env.ffprobePath),
  ]);
  return { ok: database.ok && ffmpeg.ok && ffprobe.ok && !serverState().shuttingDown, checks: { database, ffmpeg, ffprobe } };
};
