import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { descendantPids, exitCodeOf, interruptChild, spawnTracked } from '../processes';
import { sleep } from '../stats';

// The processes of the live benchmark: ffmpeg publishers (a pre-encoded file looped in real time
// with stream copy), the CPU time of a process from /proc, which of the server's ffmpeg children
// packages which stream, and whether a port is listening (ffmpeg's RTMP listener takes a single
// connection, so it cannot be probed by connecting).

const CLOCK_TICKS = (() => {
  const answer = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const ticks = Number(answer.stdout?.trim());
  return Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
})();

/** User + system CPU seconds of a living process (not its children); null once it has gone. */
export const cpuSecondsOf = (pid: number): number | null => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the line; `fields` starts at field 3.
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return null;
  }
};

const commandLine = (pid: number): string[] => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
};

/** The server's ffmpeg child reading `rtmp://127.0.0.1:…/{streamKey}` (the broadcast's packager). */
export const packagerPidOf = (serverPid: number, streamKey: string): number | null =>
  descendantPids(serverPid).find((pid) => {
    const args = commandLine(pid);
    return /(^|\/)ffmpeg$/.test(args[0] ?? '') && args.some((arg) => arg.startsWith('rtmp://127.0.0.1') && arg.endsWith(`/${streamKey}`));
  }) ?? null;

/** The server's own node processes: the app and its playback workers (not ffmpeg). */
export const serverNodePids = (serverPid: number): number[] => [
  serverPid,
  ...descendantPids(serverPid).filter((pid) => /(^|\/)node$/.test(commandLine(pid)[0] ?? '')),
];

const listeningPorts = (): Set<number> => {
  const ports = new Set<number>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state === '0A' && local) ports.add(Number.parseInt(local.split(':')[1] ?? '', 16));
    }
  }
  return ports;
};

export const waitUntilListening = async (port: number, timeoutMs: number): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!listeningPorts().has(port)) {
    if (Date.now() > deadline) throw new Error(`nothing listened on port ${port} within ${timeoutMs} ms`);
    await sleep(20);
  }
};

export type ProgressSample = { atMs: number; outSeconds: number };

export type LivePublisher = {
  readonly pid: number | undefined;
  /** Date.now() just before ffmpeg was spawned: its media clock starts at 0 then. */
  readonly startedAtMs: number;
  /** ffmpeg's -progress blocks: media seconds sent by wall-clock time. */
  readonly progress: ProgressSample[];
  readonly exited: Promise<number | null>;
  stderr(): string;
  /** SIGINT (ffmpeg closes the FLV stream cleanly), then SIGKILL if it lingers. */
  stop(): Promise<void>;
  /** SIGKILL, as an encoder that crashes: the connection drops without the stream being closed. */
  crash(): Promise<void>;
};

/**
 * ffmpeg publishing `inputPath` to `ingestUrl` in real time, looped, streams copied — as OBS would,
 * minus the encode: FLV over rtmp://, MPEG-TS over srt://. The URL carries a stream key (and an SRT
 * passphrase): it is never logged.
 */
export const startLivePublisher = ({ inputPath, ingestUrl }: { inputPath: string; ingestUrl: string }): LivePublisher => {
  const args = [
    '-hide_banner', '-nostdin', '-loglevel', 'warning', '-nostats', '-stats_period', '1', '-progress', 'pipe:1',
    '-re', '-stream_loop', '-1', '-i', inputPath,
    '-c', 'copy', '-f', ingestUrl.startsWith('srt:') ? 'mpegts' : 'flv', ingestUrl,
  ];
  const startedAtMs = Date.now();
  const child = spawnTracked('ffmpeg', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const progress: ProgressSample[] = [];
  let stderr = '';
  let pending = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const match = /^out_time_us=(\d+)/.exec(line);
      if (match) progress.push({ atMs: Date.now(), outSeconds: Number(match[1]) / 1e6 });
    }
  });
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const exited = exitCodeOf(child);
  return {
    pid: child.pid,
    startedAtMs,
    progress,
    exited,
    stderr: () => stderr,
    stop: () => interruptChild(child, exited, 5_000),
    crash: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
};
