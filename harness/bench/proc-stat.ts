import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

// CPU time as Linux's /proc accounts it, in clock ticks (USER_HZ). Elsewhere (macOS, Windows) the
// readers answer null and the bench reports the figure as not measured.

export const CLOCK_TICKS_PER_SECOND = (() => {
  const answer = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const ticks = Number(answer.stdout?.trim());
  return Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
})();

/** The whole machine since boot: ticks spent busy (any non-idle state) and in all. */
export type MachineTicks = { busy: number; total: number };

/** The aggregate `cpu` line of /proc/stat. */
export const parseMachineTicks = (procStat: string): MachineTicks | null => {
  const line = procStat.split('\n').find((candidate) => candidate.startsWith('cpu '));
  if (!line) return null;
  const [user, nice, system, idle, iowait = 0, irq = 0, softirq = 0, steal = 0] = line.trim().split(/\s+/).slice(1).map(Number);
  if ([user, nice, system, idle].some((value) => value === undefined || !Number.isFinite(value))) return null;
  // guest time is already counted in user; steal is time the hypervisor gave to someone else.
  const busy = user! + nice! + system! + irq + softirq + steal;
  return { busy, total: busy + idle! + iowait };
};

/** One process: its own ticks, and those of its children that exited and were waited for. */
export type ProcessTicks = { own: number; reapedChildren: number };

/** A /proc/<pid>/stat line. The command name may hold spaces and parentheses, so fields count from the last ')'. */
export const parseProcessTicks = (pidStat: string): ProcessTicks | null => {
  const fields = pidStat.slice(pidStat.lastIndexOf(')') + 2).trim().split(/\s+/);
  // utime, stime, cutime, cstime are fields 14–17 of the line; `fields` starts at field 3.
  const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number);
  if ([utime, stime, cutime, cstime].some((value) => value === undefined || !Number.isFinite(value))) return null;
  return { own: utime! + stime!, reapedChildren: cutime! + cstime! };
};

const readOrNull = (path: string): string | null => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
};

export const readMachineTicks = (): MachineTicks | null => {
  const text = readOrNull('/proc/stat');
  return text === null ? null : parseMachineTicks(text);
};

export const readProcessTicks = (pid: number | 'self'): ProcessTicks | null => {
  const text = readOrNull(`/proc/${pid}/stat`);
  return text === null ? null : parseProcessTicks(text);
};

/**
 * Own ticks of the given running children. With the parent's reaped count they make all its
 * children's ticks: a child's own ticks move into that count when it is waited for, so the sum only
 * grows. Grandchildren are not counted until their parent waits for them. A child that exited
 * between listing and reading is already in the reaped count or gone: it counts 0 here.
 */
export const runningChildrenTicks = (runningChildren: readonly number[]): number =>
  runningChildren.reduce((sum, child) => sum + (readProcessTicks(child)?.own ?? 0), 0);

/**
 * CPU seconds (user + system) of this process's children that have exited and been waited for:
 * the difference around one child run is that child's CPU time, whatever else the machine does.
 */
export const childCpuSeconds = (): number => (readProcessTicks('self')?.reapedChildren ?? 0) / CLOCK_TICKS_PER_SECOND;

/** The pids whose parent is `pid`, from each thread's children list (Linux ≥ 3.5). */
export const childPidsOf = (pid: number): number[] => {
  const children: number[] = [];
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return children;
  }
  for (const thread of threads) {
    const text = readOrNull(`/proc/${pid}/task/${thread}/children`);
    if (text) children.push(...text.trim().split(/\s+/).filter(Boolean).map(Number));
  }
  return children;
};
