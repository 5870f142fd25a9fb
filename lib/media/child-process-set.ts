import type { ChildProcess } from 'node:child_process';

// The children a node's media work has running (ffmpeg, ffprobe, the live packager). Children run
// in their own process groups, so they would outlive the server: graceful shutdown kills them all.
// The node keeps one set (its runtime's `childProcesses`); whoever spawns is handed it.
export class ChildProcessSet {
  private readonly live = new Set<ChildProcess>();

  get size(): number {
    return this.live.size;
  }

  add(child: ChildProcess): void {
    this.live.add(child);
  }

  delete(child: ChildProcess): void {
    this.live.delete(child);
  }

  /** Counts a child spawned elsewhere (a long-running pipeline) among those shutdown kills, until it exits. */
  track(child: ChildProcess): void {
    this.add(child);
    child.once('exit', () => this.delete(child));
  }

  /** For graceful shutdown. */
  killAll(): void {
    for (const child of this.live) killProcessGroup(child);
  }
}

export function killProcessGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    // Negative pid targets the whole group, so helpers ffmpeg may fork die too.
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    try {
      child.kill('SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/**
 * SIGTERM (ffmpeg finishes what it is writing: the last fragment, the FLV trailer), then SIGKILL to
 * the whole group if the child is still there after `graceMs`.
 */
export function terminateThenKill(child: ChildProcess, graceMs: number): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => killProcessGroup(child), graceMs);
  child.once('exit', () => clearTimeout(timer));
}
