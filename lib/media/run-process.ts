import { spawn, type StdioOptions } from 'node:child_process';
import type { Readable } from 'node:stream';
import { killProcessGroup, type ChildProcessSet } from './child-process-set';

export type RunProcessOptions = {
  command: string;
  args: readonly string[];
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Per stream. stdout keeps its head (structured output starts there), stderr its tail (errors end there). */
  maxOutputBytes?: number;
  onSpawn?: (pid: number) => void;
  /** Starts the binary at the lowest CPU priority (nice 19, in a nice-19 session), so none of its threads ever runs above it. */
  background?: boolean;
  /** Receives stdout as it arrives (binary output such as media on a pipe) instead of collecting it. */
  onStdout?: (chunk: Buffer) => void;
  /**
   * More output pipes: entry k receives what the child writes on file descriptor 3 + k (e.g.
   * ffmpeg's `pipe:3`), as it arrives. The result waits for every one of them to end.
   */
  extraOutputs?: ReadonlyArray<(chunk: Buffer) => void>;
  /**
   * The node's live children, which shutdown kills: the child is in the set while it runs. One set
   * per node (its runtime's), not per module: route handlers (bundled by Next.js) and the worker
   * (run by tsx) load this module separately, and shutdown must reach the children of both.
   */
  children: ChildProcessSet;
};

export type RunProcessResult = {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
};

const DEFAULT_MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

class HeadBuffer {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly limit: number) {}
  push(chunk: Buffer): void {
    const room = this.limit - this.size;
    if (room <= 0) return;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(kept);
    this.size += kept.length;
  }
  toString(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

// Keeps only the last `limit` bytes of a stream (stderr's last lines; the end of a raw-video read,
// which is its last frame).
export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly limit: number) {}
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.chunks.length > 1 && this.size - (this.chunks[0]?.length ?? 0) >= this.limit) {
      this.size -= this.chunks.shift()?.length ?? 0;
    }
  }
  bytes(): Buffer {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - this.limit));
  }
  toString(): string {
    return this.bytes().toString('utf8');
  }
}

/**
 * Runs a binary to completion. Never rejects because of the exit status (callers judge the
 * output); rejects only when the binary cannot be started at all.
 */
export function runProcess(options: RunProcessOptions): Promise<RunProcessResult> {
  const { command, args, signal, timeoutMs, onSpawn, onStdout, background, children, extraOutputs = [] } = options;
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;

  if (signal?.aborted) {
    return Promise.resolve({ exitCode: null, signal: null, stdout: '', stderr: '', timedOut: false, aborted: true });
  }

  return new Promise((resolve, reject) => {
    const stdout = new HeadBuffer(maxOutputBytes);
    const stderr = new TailBuffer(maxOutputBytes);
    let timedOut = false;
    let aborted = false;
    let spawned = false;
    let timer: NodeJS.Timeout | undefined;

    const [file, argv] = background ? backgroundLaunch(command, args) : [command, [...args]];
    // Node waits for every pipe to close, the extra ones included, before it emits 'close'.
    const stdio: StdioOptions = ['ignore', 'pipe', 'pipe', ...extraOutputs.map(() => 'pipe' as const)];
    const child = spawn(file, argv, { detached: true, stdio });

    const onAbort = (): void => {
      aborted = true;
      killProcessGroup(child);
    };
    const cleanup = (): void => {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      children.delete(child);
    };

    child.once('error', (error: NodeJS.ErrnoException) => {
      if (spawned) return; // A failed kill after start; 'close' still follows.
      cleanup();
      const reason = error.code === 'ENOENT' ? 'executable not found' : error.message;
      reject(new Error(`Could not start "${command}": ${reason}`, { cause: error }));
    });

    child.once('spawn', () => {
      spawned = true;
      children.add(child);
      signal?.addEventListener('abort', onAbort, { once: true });
      // The signal may have fired between spawn() and this event.
      if (signal?.aborted) onAbort();
      if (timeoutMs !== undefined && timeoutMs > 0) {
        timer = setTimeout(() => {
          timedOut = true;
          killProcessGroup(child);
        }, timeoutMs);
      }
      if (child.pid !== undefined) onSpawn?.(child.pid);
    });

    child.stdout?.on('data', (chunk: Buffer) => (onStdout ? onStdout(chunk) : stdout.push(chunk)));
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
    extraOutputs.forEach((onOutput, index) => {
      const stream = child.stdio[3 + index] as Readable | null | undefined;
      stream?.on('data', (chunk: Buffer) => onOutput(chunk));
    });

    child.once('close', (exitCode, exitSignal) => {
      if (!spawned) return;
      cleanup();
      resolve({
        exitCode,
        signal: exitSignal,
        stdout: stdout.toString(),
        stderr: stderr.toString(),
        timedOut,
        aborted,
      });
    });
  });
}

// The lowest priority: such work runs on what foreground work leaves idle.
const BACKGROUND_NICENESS = 19;

// Children run in sessions of their own (so a kill reaches their whole tree), and with the
// scheduler's autogroups (on by default in most distributions) CPU is first shared equally between
// sessions: a thread's nice value then only ranks it within its own session, so the session's
// value is set too. Renicing after spawn leaves a window in which the encoder and the threads it
// starts first run at full priority; the shell sets the session's value and nice sets the process's before the binary
// is exec'd (same pid), so its threads inherit nice 19 from their first instruction.
const BACKGROUND_LAUNCH = `{ echo ${BACKGROUND_NICENESS} > /proc/self/autogroup; } 2>/dev/null; exec nice -n ${BACKGROUND_NICENESS} "$0" "$@"`;

/** The command line that runs `command` at background priority from its start. */
function backgroundLaunch(command: string, args: readonly string[]): [string, string[]] {
  return ['/bin/sh', ['-c', BACKGROUND_LAUNCH, command, ...args]];
}
