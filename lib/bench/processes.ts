import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';

// Every process the benchmark starts (Keyframe server, ffmpeg) runs in its own process group and
// is registered here, so an exit, an error or Ctrl-C takes all of them down. The server starts its
// own ffmpeg children in separate process groups too, so killing a tree also looks up the
// descendants through /proc and kills their groups.

const liveChildren = new Set<ChildProcess>();
const ownedDirs = new Set<string>();
const cleanups = new Set<() => void>();
let handlersInstalled = false;

const readParentPid = (pid: number): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
};

/** Every living descendant of `rootPid` (children, grandchildren, …), from /proc. */
export const descendantPids = (rootPid: number): number[] => {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    const parent = readParentPid(pid);
    if (parent === undefined) continue;
    const siblings = children.get(parent) ?? [];
    siblings.push(pid);
    children.set(parent, siblings);
  }
  const found: number[] = [];
  const queue = [rootPid];
  while (queue.length > 0) {
    const next = queue.shift();
    if (next === undefined) break;
    for (const child of children.get(next) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
};

const killQuietly = (pid: number, signal: NodeJS.Signals) => {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
};

/** SIGKILL to the process group led by `pid` and to every descendant (and their groups). */
export const killTreeSync = (pid: number): void => {
  const descendants = descendantPids(pid);
  killQuietly(-pid, 'SIGKILL');
  for (const child of descendants) {
    killQuietly(-child, 'SIGKILL'); // a no-op unless the child leads its own group
    killQuietly(child, 'SIGKILL');
  }
};

export const killEverythingSync = (): void => {
  for (const cleanup of cleanups) {
    try {
      cleanup();
    } catch {
      // best effort
    }
  }
  cleanups.clear();
  for (const child of liveChildren) if (child.pid !== undefined) killTreeSync(child.pid);
  liveChildren.clear();
  for (const dir of ownedDirs) rmSync(dir, { recursive: true, force: true });
  ownedDirs.clear();
};

export const installExitHandlers = (): void => {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.once('exit', killEverythingSync);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      process.stderr.write(`\n[bench] ${signal}: stopping every process the benchmark started\n`);
      killEverythingSync();
      process.exit(130);
    });
  }
};

/** Removed when the benchmark exits (also on errors and signals). */
export const ownDirectory = (dir: string): string => {
  ownedDirs.add(dir);
  return dir;
};

export const releaseDirectory = (dir: string): void => {
  rmSync(dir, { recursive: true, force: true });
  ownedDirs.delete(dir);
};

/** Runs synchronously on exit, for resources that are not child processes (e.g. open databases). */
export const onCleanup = (cleanup: () => void): (() => void) => {
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
};

/** Spawns a child in its own process group and tracks it until it exits. */
export const spawnTracked = (command: string, args: readonly string[], options: SpawnOptions = {}): ChildProcess => {
  const child = spawn(command, args, { ...options, detached: true });
  liveChildren.add(child);
  const forget = () => liveChildren.delete(child);
  child.once('exit', forget);
  child.once('error', forget);
  return child;
};

export type CommandResult = {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  wallMs: number;
};

const MAX_CAPTURE = 1024 * 1024;

/** Runs a command to completion (tracked, own process group) and measures its wall time. */
export const runCommand = (
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<CommandResult> =>
  new Promise((resolve, reject) => {
    const startedAt = performance.now();
    const child = spawnTracked(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8');
    child.stderr?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      if (stdout.length < MAX_CAPTURE) stdout += chunk;
    });
    child.stderr?.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-MAX_CAPTURE);
    });
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            if (child.pid !== undefined) killTreeSync(child.pid);
          }, options.timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, wallMs: performance.now() - startedAt });
    });
  });

/** Descendants of `rootPid` whose executable is ffmpeg (the server's encodes). */
export const ffmpegDescendants = (rootPid: number): number[] =>
  descendantPids(rootPid).filter((pid) => {
    try {
      const argv0 = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '';
      return /(^|\/)ffmpeg$/.test(argv0);
    } catch {
      return false;
    }
  });
