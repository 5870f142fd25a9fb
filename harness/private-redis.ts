import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { launchOnFreePort } from './launch-on-free-port';
import { ownDirectory, releaseDirectory } from './processes';
import { PrivateServer } from './private-server';

// A Redis server of a test's own, for fault injection: the test may crash it and start it again on
// the same port, which the machine's shared Redis at 6379 must never suffer. It comes back empty,
// as a Redis without persistence does, unless the test asked for a snapshot first (a Redis that
// persists): that is the difference the tests of the coordination code care about.

export type PrivateRedis = {
  port: number;
  /** redis://127.0.0.1:PORT */
  url: string;
  /** Holds the snapshot; dispose() removes it. */
  dir: string;
  /** The server's pid while running. */
  readonly pid: number | undefined;
  readonly running: boolean;
  /** SIGKILL: everything not snapshotted is lost. Resolves once exited. */
  kill(): Promise<void>;
  /** Writes a snapshot (SAVE) then SIGKILLs: the next start() comes back with the data. */
  killAfterSnapshot(): Promise<void>;
  /** Starts again on the same port, with the snapshot killAfterSnapshot made since the last start, else empty. Resolves once PING answers. */
  start(): Promise<void>;
  dispose(): Promise<void>;
  /** The server's recent output, for a failing test's message. */
  logs(): string;
};

export class PrivateRedisUnavailableError extends Error {
  override name = 'PrivateRedisUnavailableError';
}

const READY_TIMEOUT_MS = 10_000;
const SNAPSHOT_FILE = 'dump.rdb';

export const findRedisServer = (): string => {
  try {
    return execFileSync('which', ['redis-server'], { encoding: 'utf8' }).trim();
  } catch {
    throw new PrivateRedisUnavailableError('redis-server is not on the PATH (install the redis-server package)');
  }
};

/** One inline command over a fresh connection; resolves with the first reply line (`+PONG`, `-LOADING …`). */
const sendCommand = (port: number, command: string, timeoutMs = 5_000): Promise<string> =>
  new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let reply = '';
    socket.setEncoding('utf8');
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no reply to ${command} within ${timeoutMs} ms`)));
    socket.once('connect', () => socket.write(`${command}\r\n`));
    socket.on('data', (chunk: string) => {
      reply += chunk;
      const end = reply.indexOf('\r\n');
      if (end === -1) return;
      socket.end();
      resolve(reply.slice(0, end));
    });
    socket.once('error', reject);
    socket.once('close', () => reject(new Error(`connection closed before a reply to ${command}`)));
  });

class PrivateRedisServer extends PrivateServer implements PrivateRedis {
  readonly url: string;
  private snapshotTaken = false;

  private constructor(
    readonly port: number,
    private readonly binary: string,
    readonly dir: string,
    label: string,
  ) {
    super(label);
    this.url = `redis://127.0.0.1:${port}`;
  }

  /** Starts a server with its files in `dir` on a free port, trying another if it was taken meanwhile. */
  static launch(binary: string, dir: string, label: string): Promise<PrivateRedisServer> {
    return launchOnFreePort({
      create: (port) => new PrivateRedisServer(port, binary, dir, label),
      start: (server) => server.start(),
      undo: (server) => server.kill(),
    });
  }

  async start(): Promise<void> {
    if (this.running) throw new Error(`${this.label} is already running`);
    if (!this.snapshotTaken) rmSync(path.join(this.dir, SNAPSHOT_FILE), { force: true });
    this.snapshotTaken = false;
    // --save '': no snapshots of its own, so what survives a kill is exactly what the test chose.
    const args = [
      '--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no',
      '--dir', this.dir, '--dbfilename', SNAPSHOT_FILE,
    ];
    await this.spawnAndWait(this.binary, args, { cwd: this.dir }, {
      question: 'PING',
      timeoutMs: READY_TIMEOUT_MS,
      pollMs: 20,
      // Not ready while it loads a snapshot: that answers -LOADING.
      answer: async () => {
        const reply = await sendCommand(this.port, 'PING', 1_000).catch((error: Error) => error.message);
        return reply === '+PONG' || reply;
      },
    });
  }

  async kill(): Promise<void> {
    if (!this.running || this.child?.pid === undefined) return;
    try {
      process.kill(this.child.pid, 'SIGKILL');
    } catch {
      // exited meanwhile
    }
    await this.exited;
  }

  async killAfterSnapshot(): Promise<void> {
    if (!this.running) throw new Error(`${this.label} is not running, so there is nothing to snapshot`);
    const reply = await sendCommand(this.port, 'SAVE', 30_000);
    if (reply !== '+OK') throw new Error(`${this.label}: SAVE answered ${reply}:\n${this.logs()}`);
    this.snapshotTaken = true;
    await this.kill();
  }

  async dispose(): Promise<void> {
    await this.kill();
    releaseDirectory(this.dir);
  }

}

/** A fresh, empty Redis on a free port, started and answering. */
export const startPrivateRedis = async (options: { label?: string } = {}): Promise<PrivateRedis> => {
  const binary = findRedisServer();
  const dir = ownDirectory(mkdtempSync(path.join(os.tmpdir(), 'keyframe-redis-')));
  try {
    return await PrivateRedisServer.launch(binary, dir, options.label ?? 'private Redis');
  } catch (error) {
    releaseDirectory(dir);
    throw error;
  }
};
