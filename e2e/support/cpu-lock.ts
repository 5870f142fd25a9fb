import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FIXTURES_DIR_ENV } from './fixtures';

// A cross-worker readers/writer lock on the machine's CPU. The playback specs encode video just in
// time; on a two-core machine a timing-sensitive test (real-time playback in a browser) must not
// share the CPU with another worker's encodes, or it would measure the test run instead of the
// server. Ordinary tests take the lock shared; a timing-sensitive test takes it exclusively and
// waits for the running shared holders to finish (new shared holders wait behind it).

export type CpuLockMode = 'shared' | 'exclusive' | 'none';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const lockRoot = (): string => {
  const base = process.env[FIXTURES_DIR_ENV] ?? path.join(os.tmpdir(), `keyframe-e2e-run-${process.ppid}`);
  const root = path.join(base, 'cpu-lock');
  mkdirSync(path.join(root, 'shared'), { recursive: true });
  return root;
};

const alive = (pid: number): boolean => {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0); // existence check only; sends nothing
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

const exclusiveHeld = (root: string): boolean => {
  const dir = path.join(root, 'exclusive');
  if (!existsSync(dir)) return false;
  let owner = Number.NaN;
  try {
    owner = Number(readFileSync(path.join(dir, 'owner'), 'utf8'));
  } catch {
    return true; // being created right now
  }
  if (alive(owner)) return true;
  rmSync(dir, { recursive: true, force: true }); // left behind by a crashed worker
  return false;
};

const liveSharedHolders = (root: string): string[] =>
  readdirSync(path.join(root, 'shared')).filter((name) => {
    if (alive(Number(name.split('-')[0]))) return true;
    rmSync(path.join(root, 'shared', name), { force: true });
    return false;
  });

/** Acquires the lock; resolves to a release function. */
export const acquireCpuLock = async (mode: CpuLockMode): Promise<() => void> => {
  if (mode === 'none') return () => undefined;
  const root = lockRoot();
  if (mode === 'shared') {
    const marker = path.join(root, 'shared', `${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`);
    for (;;) {
      if (exclusiveHeld(root)) {
        await sleep(200);
        continue;
      }
      writeFileSync(marker, '');
      if (!exclusiveHeld(root)) return () => rmSync(marker, { force: true });
      rmSync(marker, { force: true });
      await sleep(200);
    }
  }
  const dir = path.join(root, 'exclusive');
  for (;;) {
    try {
      mkdirSync(dir);
      writeFileSync(path.join(dir, 'owner'), String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      exclusiveHeld(root); // clears a stale lock
      await sleep(200);
    }
  }
  while (liveSharedHolders(root).length > 0) await sleep(200);
  return () => rmSync(dir, { recursive: true, force: true });
};
