import { readdirSync, readFileSync } from 'node:fs';
import { niceOf } from '../../lib/media/test-support/scheduling';

// Looks at the processes a Keyframe server spawns (its ffmpeg encodes) through /proc, limited to
// the descendants of that server's process so parallel workers never see each other's encodes.

/** `state` is the one-letter /proc state: R running, S sleeping, T stopped (a paused encode), … */
export type ProcessEntry = { pid: number; ppid: number; state: string; argv: string[]; command: string };

const readProcess = (pid: number): ProcessEntry | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may itself contain spaces or parentheses.
    const afterName = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ppid = Number(afterName[1]);
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    return { pid, ppid, state: afterName[0] ?? '', argv, command: argv.join(' ') };
  } catch {
    return undefined; // exited meanwhile
  }
};

export const listProcesses = (): ProcessEntry[] => {
  const entries: ProcessEntry[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const entry = readProcess(Number(name));
    if (entry) entries.push(entry);
  }
  return entries;
};

/** Every living descendant of `rootPid` (children, grandchildren, …). */
export const descendantsOf = (rootPid: number): ProcessEntry[] => {
  const all = listProcesses();
  const children = new Map<number, ProcessEntry[]>();
  for (const entry of all) {
    const siblings = children.get(entry.ppid) ?? [];
    siblings.push(entry);
    children.set(entry.ppid, siblings);
  }
  const found: ProcessEntry[] = [];
  const queue = [rootPid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
};

export const isFfmpeg = (entry: ProcessEntry): boolean => /(^|\/)ffmpeg$/.test(entry.argv[0] ?? '');

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

const runsAtLowestPriority = (pid: number): boolean => {
  try {
    return niceOf(pid) >= 19;
  } catch {
    return true; // exited meanwhile
  }
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
