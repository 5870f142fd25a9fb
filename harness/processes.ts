import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { niceOf } from '../lib/media/test-support/scheduling';

// The processes the harness starts and the ones it watches.
//
// Every process the e2e tests and the benchmark start (Keyframe servers, nginx, ffmpeg) runs in its
// own process group and is registered here, so an exit (and, once installExitHandlers() ran, an
// error or Ctrl-C) takes all of them down. The server starts its own ffmpeg children in separate
// process groups too, so killing a tree also looks up the descendants through /proc and kills their
// groups.
//
// What a Keyframe server spawns (its ffmpeg encodes) is looked at through /proc, limited to the
// descendants of that server's process so parallel workers never see each other's encodes.

const liveChildren = new Set<ChildProcess>();
const ownedDirs = new Set<string>();
const cleanups = new Set<() => void>();
let signalHandlersInstalled = false;

/** `state` is the one-letter /proc state: R running, S sleeping, T stopped (a paused encode), … */
export type ProcessEntry = { pid: number; ppid: number; state: string; argv: string[]; command: string };

type ProcessStat = { pid: number; ppid: number; state: string };

const readStat = (pid: number): ProcessStat | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may itself contain spaces or parentheses.
    const afterName = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pid, ppid: Number(afterName[1]), state: afterName[0] ?? '' };
  } catch {
    return undefined; // exited meanwhile
  }
};

const readArgv = (pid: number): string[] | undefined => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return undefined; // exited meanwhile
  }
};

const allStats = (): ProcessStat[] => {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  return names.filter((name) => /^\d+$/.test(name)).flatMap((name) => readStat(Number(name)) ?? []);
};

const descendantStats = (rootPid: number): ProcessStat[] => {
  const children = new Map<number, ProcessStat[]>();
  for (const entry of allStats()) {
    const siblings = children.get(entry.ppid) ?? [];
    siblings.push(entry);
    children.set(entry.ppid, siblings);
  }
  const found: ProcessStat[] = [];
  const queue = [rootPid];
  while (queue.length > 0) {
    const next = queue.shift();
    if (next === undefined) break;
    for (const child of children.get(next) ?? []) {
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
};

/** Every living process with its command line. */
export const listProcesses = (): ProcessEntry[] =>
  allStats().flatMap((stat) => {
    const argv = readArgv(stat.pid);
    return argv ? [{ ...stat, argv, command: argv.join(' ') }] : [];
  });

/** Every living descendant of `rootPid` (children, grandchildren, …), from /proc. */
export const descendantPids = (rootPid: number): number[] => descendantStats(rootPid).map((entry) => entry.pid);

/** Every living descendant of `rootPid` (children, grandchildren, …), with its command line. */
export const descendantsOf = (rootPid: number): ProcessEntry[] =>
  descendantStats(rootPid).flatMap((stat) => {
    const argv = readArgv(stat.pid);
    return argv ? [{ ...stat, argv, command: argv.join(' ') }] : [];
  });

export const isFfmpeg = (entry: ProcessEntry): boolean => /(^|\/)ffmpeg$/.test(entry.argv[0] ?? '');

/** Descendants of `rootPid` whose executable is ffmpeg (the server's encodes). */
export const ffmpegDescendants = (rootPid: number): number[] => descendantsOf(rootPid).filter(isFfmpeg).map((entry) => entry.pid);

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

// Last-resort cleanup if a test worker or the benchmark exits without stopping what it started.
process.once('exit', killEverythingSync);

/** Also stops everything on SIGINT, SIGTERM and SIGHUP (the benchmark, which runs in a terminal). */
export const installExitHandlers = (): void => {
  if (signalHandlersInstalled) return;
  signalHandlersInstalled = true;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      process.stderr.write(`\n[bench] ${signal}: stopping every process the benchmark started\n`);
      killEverythingSync();
      process.exit(130);
    });
  }
};

/** Removed when the process exits (also on errors and, with installExitHandlers, signals). */
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

/**
 * True when an ffmpeg command line scales to `width` (`scale=640:360`, `scale=w=640:h=-2`,
 * `scale=640:-2`, `-s 640x360`, …). Also accepts the rotated form (`scale=-2:640`) for portrait.
 */
export const scalesToWidth = (entry: ProcessEntry, width: number): boolean => {
  const command = entry.command;
  const patterns = [
    new RegExp(`scale=(?:w=|width=)?${width}(?![0-9])`),
    new RegExp(`scale=[^,; ]*?(?:w|width)=${width}(?![0-9])`),
    new RegExp(`(?:^| )-s(?::v)? ${width}x\\d+`),
  ];
  return patterns.some((pattern) => pattern.test(command));
};

const runsAtLowestPriority = (pid: number): boolean => {
  try {
    return niceOf(pid) >= 19;
  } catch {
    return true; // exited meanwhile
  }
};

/**
 * Waits until no ffmpeg under `rootPid` has been doing urgent work for `quietMs` in a row, so a
 * test that watches for one encode does not start while an earlier test's prefetches hold the
 * encoder slots. A paused encode (state T) and one at nice 19 (idle work, which any prefetch or
 * viewer preempts) do not count; a single empty sample is not enough, since the next queued encode
 * starts a moment after the last one exits. Throws, naming what still runs, after `timeoutMs`.
 */
export const waitForIdleEncoders = async (rootPid: number, { timeoutMs = 90_000, quietMs = 1_500 } = {}): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  let quietSince = Date.now();
  let busy: ProcessEntry[] = [];
  while (Date.now() < deadline) {
    busy = descendantsOf(rootPid).filter((entry) => isFfmpeg(entry) && entry.state !== 'T' && !runsAtLowestPriority(entry.pid));
    if (busy.length > 0) quietSince = Date.now();
    else if (Date.now() - quietSince >= quietMs) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`encoders still busy after ${timeoutMs} ms:\n${busy.map((entry) => entry.command).join('\n')}`);
};

export type ProcessWatch = {
  /** Every distinct matching process seen so far, by pid (first sighting kept). */
  seen: Map<number, ProcessEntry & { firstSeen: number; lastSeen: number }>;
  stop: () => Promise<void>;
};

/** Polls /proc every `intervalMs` for descendants of `rootPid` that satisfy `match`. */
export const watchProcesses = (
  rootPid: number,
  match: (entry: ProcessEntry) => boolean,
  { intervalMs = 20 }: { intervalMs?: number } = {},
): ProcessWatch => {
  const seen: ProcessWatch['seen'] = new Map();
  let running = true;
  const loop = (async () => {
    while (running) {
      const now = Date.now();
      for (const entry of descendantsOf(rootPid)) {
        if (!match(entry)) continue;
        const known = seen.get(entry.pid);
        if (known && known.command === entry.command) known.lastSeen = now;
        else seen.set(entry.pid, { ...entry, firstSeen: now, lastSeen: now });
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    seen,
    stop: async () => {
      running = false;
      await loop;
    },
  };
};

/** The child's exit code once it has exited (null: killed by a signal, or it never started). */
export const exitCodeOf = (child: ChildProcess): Promise<number | null> =>
  new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.once('error', () => resolve(null));
  });

/**
 * Ends a child that finishes cleanly on SIGINT (ffmpeg closes its output, as an encoder's "stop
 * streaming" does), with SIGKILL after `graceMs`; resolves once it has exited.
 */
export const interruptChild = async (child: ChildProcess, exited: Promise<unknown>, graceMs: number): Promise<void> => {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGINT');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
};
