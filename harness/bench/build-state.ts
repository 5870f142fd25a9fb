import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../paths';
import { runCommand } from '../processes';

// Which code a run measured: the commit, uncommitted changes and whether the production build is
// older than the sources.

export const gitInfo = async () => {
  const head = await runCommand('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, timeoutMs: 10_000 }).catch(() => null);
  const status = await runCommand('git', ['status', '--porcelain'], { cwd: REPO_ROOT, timeoutMs: 10_000 }).catch(() => null);
  return {
    gitHead: head?.code === 0 ? head.stdout.trim() : 'unknown',
    uncommittedFiles: status?.code === 0 ? status.stdout.split('\n').filter(Boolean).length : 0,
  };
};

/** Source files changed after the production build was made (the build is not redone; see docs/benchmark.md). */
export const sourcesNewerThanBuild = (buildIdPath: string): string[] => {
  if (!existsSync(buildIdPath)) return [];
  const builtAt = statSync(buildIdPath).mtimeMs;
  const newer: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const relative = path.relative(REPO_ROOT, full);
      if (entry.name === 'node_modules') continue;
      if (entry.isDirectory()) walk(full);
      else if (/\.(ts|tsx|mjs|js|css)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) && statSync(full).mtimeMs > builtAt) {
        newer.push(relative);
      }
    }
  };
  for (const dir of ['app', 'lib']) if (existsSync(path.join(REPO_ROOT, dir))) walk(path.join(REPO_ROOT, dir));
  return newer.sort();
};
