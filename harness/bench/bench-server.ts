import { existsSync } from 'node:fs';
import path from 'node:path';
import { KeyframeProcess, type AccessToken, type EnvOverrides, type HarnessProfile } from '../keyframe-process';
import { runCommand } from '../processes';

// The servers the benchmark measures: the harness's launcher (../keyframe-process.ts) with the
// benchmark's patience (a server under measurement may take longer to start than a test's), its
// names (keyframe-bench-data-…) and a shorter log tail.

export const BENCH_PROFILE: HarnessProfile = { name: 'bench', startTimeoutMs: 90_000, cliTimeoutMs: 60_000, maxLogLines: 500 };

/** Starts a Keyframe server (the server bundle `npm start` runs) on a free port with a fresh DATA_DIR. */
export const startBenchServer = ({ env = {} }: { env?: EnvOverrides } = {}): Promise<KeyframeProcess> =>
  KeyframeProcess.start({ env, profile: BENCH_PROFILE });

export type { AccessToken };

/** One server process: where its ffmpeg children hang and where it keeps its files. */
export type ServerNode = { pid: number | undefined; dataDir: string };

/**
 * What the time-to-ready and segment measurements need of what they measure: one server, or an
 * app node and a worker node. `baseUrl` and `dataDir` are the node that answers the API and
 * playback; `nodes` every process that may run work after an asset is ready.
 */
export type Deployment = {
  readonly baseUrl: string;
  readonly dataDir: string;
  readonly nodes: readonly ServerNode[];
  findLogRecords(match: Record<string, string>): Array<Record<string, unknown>>;
};

/** Builds the Next.js app only when there is no production build at all. */
export const ensureProductionBuild = async (repoRoot: string, log: (line: string) => void): Promise<{ built: boolean }> => {
  if (existsSync(path.join(repoRoot, '.next', 'BUILD_ID')) && existsSync(path.join(repoRoot, '.next', 'keyframe', 'server.mjs'))) {
    return { built: false };
  }
  log('no production build (.next/BUILD_ID, .next/keyframe/server.mjs); running npm run build…');
  const result = await runCommand('npm', ['run', 'build'], { cwd: repoRoot, timeoutMs: 20 * 60_000 });
  if (result.code !== 0) throw new Error(`npm run build failed:\n${(result.stdout + result.stderr).trim().slice(-2000)}`);
  return { built: true };
};
