import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { launchOnFreePort } from './launch-on-free-port';
import { promisify } from 'node:util';
import { descendantPids, killTreeSync, onCleanup, ownDirectory, releaseDirectory } from './processes';
import { PrivateServer } from './private-server';

// A PostgreSQL server of a test's own, for fault injection: the test may crash it (SIGKILL), stop
// it and start it again on the same data directory and port, which the machine's shared
// PostgreSQL at 127.0.0.1:5432 must never suffer. Debian's binaries, a fresh cluster in a temp
// dir, durability traded for speed (fsync off: the OS page cache survives a killed server, so a
// committed row survives kill() + start()).

export type PrivatePostgres = {
  port: number;
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  adminUrl: string;
  /** Holds the cluster (data/) and the server's socket; dispose() removes it. */
  dir: string;
  /** The postmaster's pid while running. */
  readonly pid: number | undefined;
  readonly running: boolean;
  /** Creates a database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** SIGKILL of the postmaster and its backends (a crash); resolves once they have exited. */
  kill(): Promise<void>;
  /** Fast shutdown (SIGINT to the postmaster, as pg_ctl stop -m fast); resolves once it has exited. */
  stop(): Promise<void>;
  /** Starts again on the same data directory and port; resolves once it answers SELECT 1. */
  start(): Promise<void>;
  /** Stops it if running and removes the data directory. */
  dispose(): Promise<void>;
  /** The server's recent output, for a failing test's message. */
  logs(): string;
};

export class PrivatePostgresUnavailableError extends Error {
  override name = 'PrivatePostgresUnavailableError';
}

const DEBIAN_POSTGRES_ROOT = '/usr/lib/postgresql';
const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 30_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The bin directory of the highest PostgreSQL version installed. */
export const findPostgresBinaries = (): string => {
  const versions = existsSync(DEBIAN_POSTGRES_ROOT)
    ? readdirSync(DEBIAN_POSTGRES_ROOT).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a))
    : [];
  const bin = versions.map((version) => path.join(DEBIAN_POSTGRES_ROOT, version, 'bin')).find((dir) => existsSync(path.join(dir, 'postgres')) && existsSync(path.join(dir, 'initdb')));
  if (!bin) throw new PrivatePostgresUnavailableError(`no PostgreSQL server binaries in ${DEBIAN_POSTGRES_ROOT}/<version>/bin (install the postgresql package)`);
  return bin;
};

type OsUser = { uid: number; gid: number };

// initdb and postgres refuse to run as root; as any other user they run as that user.
const serverUser = (): OsUser | undefined => {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    throw new PrivatePostgresUnavailableError('running as root, and there is no "postgres" OS user to run the server as');
  }
};

const giveTo = (dir: string, user: OsUser | undefined) => {
  if (user) chownSync(dir, user.uid, user.gid);
};

const answersSelectOne = async (url: string): Promise<true | string> => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on('error', () => {}); // a server killed under an open connection; the query reports it
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => {});
  }
};

/**
 * A crashed postmaster leaves its small System V shared-memory segment behind (a clean shutdown
 * removes it); the next start on the same data directory reuses the key, but one never started
 * again would leak a segment per test run. Its id is on line 7 of postmaster.pid.
 */
const removeCrashedSegment = (dataDir: string) => {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const shmid = readFileSync(pidFile, 'utf8').split('\n')[6]?.trim().split(/\s+/)[1];
  if (!shmid || !/^\d+$/.test(shmid)) return;
  try {
    execFileSync('ipcrm', ['-m', shmid], { stdio: 'ignore' });
  } catch {
    // already removed, or ipcrm missing: a 56-byte leak
  }
};

const isGone = (pid: number) => {
  try {
    // A zombie (an orphaned backend that the container's init does not reap) holds no memory.
    return /\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
};

const initCluster = async (bin: string, dir: string, user: OsUser | undefined) => {
  // --locale=C: the environment's locale may not be generated on this machine, which initdb rejects.
  const args = ['-D', path.join(dir, 'data'), '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C'];
  try {
    await promisify(execFile)(path.join(bin, 'initdb'), args, { cwd: dir, uid: user?.uid, gid: user?.gid, timeout: 60_000 });
  } catch (error) {
    const { stderr = '', stdout = '' } = error as { stderr?: string; stdout?: string };
    throw new PrivatePostgresUnavailableError(`initdb failed: ${error instanceof Error ? error.message : String(error)}\n${stderr}${stdout}`);
  }
};

class PrivatePostgresServer extends PrivateServer implements PrivatePostgres {
  readonly adminUrl: string;
  private readonly forgetCleanup: () => void;

  private constructor(
    readonly port: number,
    private readonly bin: string,
    readonly dir: string,
    private readonly user: OsUser | undefined,
    label: string,
  ) {
    super(label);
    this.adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
    // Runs before spawnTracked's own exit kill, which would leave the segment behind.
    this.forgetCleanup = onCleanup(() => {
      if (this.child?.pid !== undefined) killTreeSync(this.child.pid);
      removeCrashedSegment(this.dataDir);
    });
  }

  /** Starts the initialized cluster in `dir` on a free port, trying another if it was taken meanwhile. */
  static launch(bin: string, dir: string, user: OsUser | undefined, label: string): Promise<PrivatePostgresServer> {
    return launchOnFreePort({
      create: (port) => new PrivatePostgresServer(port, bin, dir, user, label),
      start: (server) => server.start(),
      undo: async (server) => {
        await server.kill();
        server.release();
      },
    });
  }

  private get dataDir() {
    return path.join(this.dir, 'data');
  }

  async createDatabase(name: string): Promise<string> {
    const client = new pg.Client({ connectionString: this.adminUrl });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
    } finally {
      await client.end();
    }
    return `postgres://postgres@127.0.0.1:${this.port}/${encodeURIComponent(name)}`;
  }

  async start(): Promise<void> {
    // Not synchronous_commit=off: a commit would be acknowledged while its WAL is still in shared
    // memory, and kill() loses it (measured: the table created just before a kill was gone). With
    // fsync off, a synchronous commit only costs a write() into the page cache, which a killed
    // server keeps.
    const args = [
      '-D', this.dataDir, '-p', String(this.port), '-k', path.join(this.dir, 'socket'),
      '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'full_page_writes=off', '-c', 'max_connections=200',
    ];
    await this.spawnAndWait(path.join(this.bin, 'postgres'), args, { cwd: this.dir, uid: this.user?.uid, gid: this.user?.gid }, {
      question: 'SELECT 1',
      timeoutMs: READY_TIMEOUT_MS,
      pollMs: 50,
      answer: () => answersSelectOne(this.adminUrl),
    });
  }

  async kill(): Promise<void> {
    const pid = this.child?.pid;
    if (!this.running || pid === undefined) return;
    // The whole server, as a crashed machine loses it: backends left running would keep the old
    // shared memory attached, and the next start would refuse the data directory.
    const backends = descendantPids(pid);
    killTreeSync(pid);
    await this.exited;
    while (!backends.every(isGone)) await sleep(10);
  }

  async stop(): Promise<void> {
    const pid = this.child?.pid;
    if (!this.running || pid === undefined) return;
    try {
      process.kill(pid, 'SIGINT');
    } catch {
      // exited meanwhile
    }
    const stopped = await Promise.race([this.exited.then(() => true), sleep(STOP_TIMEOUT_MS).then(() => false)]);
    if (!stopped) await this.kill();
  }

  async dispose(): Promise<void> {
    await this.stop();
    this.release();
    releaseDirectory(this.dir);
  }

  private release() {
    removeCrashedSegment(this.dataDir);
    this.forgetCleanup();
  }

}

/** A fresh PostgreSQL cluster on a free port, started and answering. */
export const startPrivatePostgres = async (options: { label?: string } = {}): Promise<PrivatePostgres> => {
  const bin = findPostgresBinaries();
  const user = serverUser();
  // Enterable all the way down, since the server runs as the postgres user, not as the test's.
  const dir = ownDirectory(mkdtempSync(path.join(os.tmpdir(), 'keyframe-postgres-')));
  try {
    chmodSync(dir, 0o755);
    mkdirSync(path.join(dir, 'data'), { mode: 0o700 });
    mkdirSync(path.join(dir, 'socket'), { mode: 0o755 });
    giveTo(path.join(dir, 'data'), user);
    giveTo(path.join(dir, 'socket'), user);
    await initCluster(bin, dir, user);
    return await PrivatePostgresServer.launch(bin, dir, user, options.label ?? 'private PostgreSQL');
  } catch (error) {
    releaseDirectory(dir);
    throw error;
  }
};
