import type { ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port.mjs';
import { killTreeSync, ownDirectory, releaseDirectory, spawnTracked } from './processes';

// Debian's nginx, started by the harness itself: one master in the foreground (`daemon off`), its
// configuration, logs and temp files in a directory of its own, on a free loopback port, in its own
// process group (tracked by processes.ts, so it is killed with the harness if a test worker or the
// benchmark dies). What it is configured as belongs to the caller: the e2e tests' caching proxy
// and round-robin balancer (e2e/support/nginx.ts), the benchmark's static-file peer
// (bench/nginx-static-files.ts).

export const NGINX_BIN = process.env.E2E_NGINX ?? '/usr/sbin/nginx';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type NginxSetup = {
  label: string;
  port: number;
  /** Default: NGINX_BIN. */
  binary?: string;
  /** A directory of the caller's choosing (emptied first); default: a fresh temp dir. */
  dir?: string;
  /** Writes what nginx serves into the directory before nginx starts. */
  prepare?: (dir: string) => void;
  /** The whole nginx.conf; `inDir` names a file in the instance's directory. */
  config: (settings: { listen: string; port: number; dir: string; inDir: (name: string) => string }) => string;
  /**
   * `upstream-healthy`: wait for Keyframe's /api/health 200 through nginx. `listening`: nginx has
   * bound its port (the nodes behind it are started afterwards, knowing the proxy's URL).
   * `{ serves }`: that path answers 200.
   */
  readiness: 'upstream-healthy' | 'listening' | { serves: string };
  /** SIGTERM: fast shutdown (default). SIGQUIT: graceful, the workers finish what they serve. */
  stopSignal?: 'SIGTERM' | 'SIGQUIT';
};

/** One nginx master in the foreground, its configuration, logs and temp files in one directory. */
export class NginxProcess {
  readonly label: string;
  readonly port: number;
  readonly baseUrl: string;
  readonly dir: string;
  readonly configPath: string;
  /** The configuration nginx runs with. */
  readonly config: string;
  private readonly readiness: NginxSetup['readiness'];
  private readonly stopSignal: NonNullable<NginxSetup['stopSignal']>;
  private readonly child: ChildProcess;
  private output = '';
  private exited: Promise<void>;
  private running = true;

  protected constructor(setup: NginxSetup) {
    this.label = setup.label;
    this.port = setup.port;
    this.readiness = setup.readiness;
    this.stopSignal = setup.stopSignal ?? 'SIGTERM';
    this.baseUrl = `http://127.0.0.1:${setup.port}`;
    if (setup.dir) {
      rmSync(setup.dir, { recursive: true, force: true });
      mkdirSync(setup.dir, { recursive: true });
      this.dir = setup.dir;
    } else {
      this.dir = mkdtempSync(path.join(os.tmpdir(), 'keyframe-nginx-'));
    }
    ownDirectory(this.dir);
    // Worker processes run as an unprivileged user when the master runs as root.
    chmodSync(this.dir, 0o755);
    setup.prepare?.(this.dir);
    this.configPath = path.join(this.dir, 'nginx.conf');
    const inDir = (name: string) => path.join(this.dir, name);
    this.config = setup.config({ listen: `127.0.0.1:${setup.port}`, port: setup.port, dir: this.dir, inDir });
    writeFileSync(this.configPath, this.config);
    // -e: the startup error log too, so nginx never touches /var/log/nginx.
    this.child = spawnTracked(setup.binary ?? NGINX_BIN, ['-p', this.dir, '-c', this.configPath, '-e', inDir('error.log')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [this.child.stdout, this.child.stderr]) {
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => (this.output += chunk));
    }
    this.exited = new Promise((resolve) => {
      const done = () => {
        this.running = false;
        resolve();
      };
      this.child.once('exit', done);
      this.child.once('error', (error) => {
        this.output += `spawn error: ${error.message}\n`;
        done();
      });
    });
  }

  /** Starts `create(port)` on `port`, or on a free port, trying another one if it was taken meanwhile. */
  protected static async launch<T extends NginxProcess>(port: number | undefined, create: (port: number) => T): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      const nginx = create(port ?? (await freePort()));
      try {
        await nginx.waitUntilReady(15_000);
        return nginx;
      } catch (error) {
        const portTaken = nginx.logs().includes('Address already in use');
        await nginx.dispose();
        if (!portTaken || port !== undefined || attempt >= 3) throw error;
      }
    }
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  url(pathname: string): string {
    return `${this.baseUrl}${pathname}`;
  }

  /** Error log, process output, access log and configuration, for attaching to a failing test (what failed first). */
  logs(): string {
    const read = (name: string) => {
      const file = path.join(this.dir, name);
      return existsSync(file) ? readFileSync(file, 'utf8') : '(none)';
    };
    return [
      '--- error.log', read('error.log'),
      '--- process output', this.output || '(none)',
      '--- access.log', read('access.log'),
      `--- ${this.configPath}`, read('nginx.conf'),
    ].join('\n');
  }

  /** The stop signal to the master, SIGKILL to the group if it does not exit in time. */
  async stop(timeoutMs = 10_000): Promise<void> {
    if (!this.running) return;
    try {
      process.kill(this.child.pid!, this.stopSignal);
    } catch {
      // already gone
    }
    const stopped = await Promise.race([this.exited.then(() => true), sleep(timeoutMs).then(() => false)]);
    // The workers and cache manager, if the master left them behind.
    if (this.child.pid !== undefined) killTreeSync(this.child.pid);
    if (!stopped) await this.exited;
  }

  /** Stops nginx and removes its directory. */
  async dispose(): Promise<void> {
    await this.stop();
    releaseDirectory(this.dir);
  }

  killGroupSync(): void {
    if (this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }

  private async waitUntilReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = 'no answer yet';
    while (Date.now() < deadline) {
      if (!this.running) throw new Error(`${this.label} exited during startup:\n${this.logs()}`);
      if (this.readiness === 'listening') {
        // No request may go through before the nodes are up: nginx would mark them failed for 10 s.
        // nginx writes its pid file once it has bound its port (it exits if the port is taken).
        if (existsSync(path.join(this.dir, 'nginx.pid'))) return;
        last = 'no pid file yet';
        await sleep(100);
        continue;
      }
      const probe = this.readiness === 'upstream-healthy' ? '/api/health' : this.readiness.serves;
      try {
        const response = await fetch(this.url(probe), { signal: AbortSignal.timeout(2_000) });
        await response.arrayBuffer();
        // Keyframe's answer through nginx, not another process that took the port.
        const throughNginx = this.readiness !== 'upstream-healthy' || response.headers.get('server')?.startsWith('nginx');
        if (response.status === 200 && throughNginx) return;
        last = `status ${response.status}, Server: ${response.headers.get('server')}`;
      } catch (error) {
        last = error instanceof Error ? error.message : String(error);
      }
      await sleep(100);
    }
    throw new Error(`${this.label} did not answer within ${timeoutMs} ms (last: ${last}):\n${this.logs()}`);
  }
}
