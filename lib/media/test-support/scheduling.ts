import { existsSync, readFileSync } from 'node:fs';

// What the Linux scheduler holds for a process, read from /proc: tests check that work nobody
// waits for really runs at the lowest priority.

/** The nice value of one thread (the main one by default), from field 19 of its stat line. */
export const niceOf = (pid: number, thread: number | string = pid): number => {
  const stat = readFileSync(`/proc/${pid}/task/${thread}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
};

/** Whether the kernel shares CPU between sessions (autogroups) before nice values count. */
export const autogroupsEnabled = (): boolean =>
  existsSync('/proc/sys/kernel/sched_autogroup_enabled') && readFileSync('/proc/sys/kernel/sched_autogroup_enabled', 'utf8').trim() === '1';

/** The nice value of the process's autogroup, or null where there are none. */
export const autogroupNiceOf = (pid: number): number | null => {
  if (!autogroupsEnabled() || !existsSync(`/proc/${pid}/autogroup`)) return null;
  const match = / nice (-?\d+)$/m.exec(readFileSync(`/proc/${pid}/autogroup`, 'utf8'));
  return match?.[1] === undefined ? null : Number(match[1]);
};
