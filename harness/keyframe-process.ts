import type { ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, type WriteStream } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SERVER_ENV, SERVER_NODE_FLAGS } from '../lib/server/node-flags';
import { withTimeout } from '../lib/utils/with-timeout';
import { freePort } from './free-port.mjs';
import { CLI_BUNDLE, CLI_ENTRY, REPO_ROOT, SERVER_BUNDLE, TSX_BIN } from './paths';
import { killTreeSync, ownDirectory, releaseDirectory, runCommand, spawnTracked } from './processes';

// Starts one real Keyframe server process (the server bundle `npm start` runs) on a free port with a
// fresh DATA_DIR (and, when the caller hands it one, a fresh database), and stops them again: the
// one launcher of the e2e tests and the benchmark. Every process is started in its own process
// group (tracked by processes.ts, so the harness's exit takes it down) and `kill9()` takes down the
// server *and* any ffmpeg it runs, exactly like a crash or an OOM kill.

/** `undefined` removes the variable from the server's environment. */
export type EnvOverrides = Record<string, string | undefined>;

/** A database made for one server: dropped when the server is disposed, kept across a restart. */
export type OwnedDatabase = { url: string; drop: () => Promise<void> };

/** What differs between the suites that start servers: names, patience and how much log to keep. */
export type HarnessProfile = {
  /** In temp directory and token names: keyframe-<name>-data-…, <name>-read-write-…. */
  name: string;
  startTimeoutMs: number;
  cliTimeoutMs: number;
  maxLogLines: number;
};

export const E2E_PROFILE: HarnessProfile = { name: 'e2e', startTimeoutMs: 60_000, cliTimeoutMs: 30_000, maxLogLines: 2_000 };

export type StartOptions = {
  env?: EnvOverrides;
  /** Reuse an existing data directory (e.g. a restart); otherwise a fresh temp dir is created. */
  dataDir?: string;
  /** `healthy`: wait for /api/health 200. `responding`: any HTTP answer will do (e.g. a 503). */
  ready?: 'healthy' | 'responding';
  /** Default: the profile's. */
  startTimeoutMs?: number;
  label?: string;
  /** A port chosen beforehand (a cluster node, whose port the load balancer already names); otherwise a free one. */
  port?: number;
  /**
   * Makes a database of the server's own (e2e's E2E_DATABASE_URL). Only a fresh server gets one: a
   * restart (same DATA_DIR) or a caller that names its own DATABASE_URL keeps the one it has.
   */
  freshDatabase?: () => Promise<OwnedDatabase>;
  /** Default: the e2e tests'. */
  profile?: HarnessProfile;
};

export type ExitInfo = { code: number | null; signal: NodeJS.Signals | null; at: number };

export type AccessToken = { id: string; secret: string; name: string; permission: 'read_write' | 'read_only' };

// Configuration the server reads; cleared from the inherited environment so a developer's shell
// settings can't leak into a test server or the measured one.
const KEYFRAME_VARIABLES = [
  'NODE_ENV', 'PORT', 'HOST', 'BASE_URL', 'STREAM_URL', 'DATA_DIR', 'DATABASE_URL', 'FFMPEG_PATH', 'FFPROBE_PATH',
  'ALLOW_PRIVATE_INPUT_URLS', 'MAX_INPUT_BYTES', 'MAX_INPUT_DURATION_SECONDS', 'INPUT_DOWNLOAD_TIMEOUT_SECONDS',
  'INGEST_CONCURRENCY', 'INGEST_CPU_CONCURRENCY', 'ASSET_GET_RATE_PER_SECOND', 'ASSET_GET_RATE_BURST', 'LOG_LEVEL',
  'JIT_ENCODE_CONCURRENCY', 'RENDITION_CACHE_MAX_BYTES', 'PREFETCH_SEGMENTS', 'FILL_IDLE_ENCODERS',
  'WEBHOOK_RETRY_BASE_SECONDS', 'WEBHOOK_TIMEOUT_SECONDS', 'METRICS_TOKEN',
  'S3_BUCKET', 'S3_ENDPOINT', 'S3_REGION', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'S3_FORCE_PATH_STYLE', 'S3_PUBLIC_URL',
  'RTMP_PORT', 'RTMP_URL', 'NODE_URL', 'RTMPS_PORT', 'RTMPS_URL', 'RTMPS_CERT_FILE', 'RTMPS_KEY_FILE', 'SRT_PORT', 'SRT_URL', 'LIVE_MAX_STREAMS', 'LIVE_X264_PRESET', 'TRUSTED_PROXIES',
  'KEYFRAME_ROLE', 'REDIS_URL', 'REDIS_KEY_PREFIX', 'PLAYBACK_WORKERS', 'PLAYBACK_WORKER_MEMORY_CACHE_BYTES',
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** "<status> <body>" of one health request, given up after 2 s whatever the fetch does with its signal. */
const probeHealth = (url: string): Promise<string> => {
  const controller = new AbortController();
  const answer = (async () => {
    const response = await fetch(url, { signal: controller.signal });
    return `${response.status} ${(await response.text()).slice(0, 300)}`;
  })();
  answer.catch(() => undefined); // settled after the deadline: nobody awaits it any more
  return withTimeout(answer, 2_000, `no answer from ${url} within 2 s`).finally(() => controller.abort());
};

export class KeyframeProcess {
  readonly label: string;
  readonly port: number;
  readonly baseUrl: string;
  readonly dataDir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly overrides: EnvOverrides;
  readonly profile: HarnessProfile;
  readonly startedAt = Date.now();
  private readonly child: ChildProcess;
  private readonly logLines: string[] = [];
  // KEYFRAME_HARNESS_LOG_DIR: every line also goes to a file there (the tail kept in memory is short).
  private readonly logCopy: WriteStream | null;
  private exitInfo: ExitInfo | undefined;
  private readonly exitPromise: Promise<ExitInfo>;
  private ownsDataDir: boolean;
  /** The database made for this server (freshDatabase); dropped with the data directory. */
  private ownedDatabase: OwnedDatabase | undefined;

  private constructor(options: {
    label: string;
    port: number;
    dataDir: string;
    ownsDataDir: boolean;
    ownedDatabase: OwnedDatabase | undefined;
    overrides: EnvOverrides;
    profile: HarnessProfile;
  }) {
    this.label = options.label;
    this.port = options.port;
    this.baseUrl = `http://127.0.0.1:${options.port}`;
    this.dataDir = options.dataDir;
    this.ownsDataDir = options.ownsDataDir;
    this.overrides = options.overrides;
    this.ownedDatabase = options.ownedDatabase;
    this.profile = options.profile;
    if (this.ownsDataDir) ownDirectory(this.dataDir);

    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of KEYFRAME_VARIABLES) delete env[name];
    Object.assign(env, {
      ...SERVER_ENV,
      NODE_ENV: 'production',
      PORT: String(this.port),
      HOST: '127.0.0.1',
      BASE_URL: this.baseUrl,
      DATA_DIR: this.dataDir,
      ALLOW_PRIVATE_INPUT_URLS: 'true',
      // Live ingest only where a test asks for it (with a port of its own): servers run side by side.
      RTMP_PORT: '0',
      RTMPS_PORT: '0',
      SRT_PORT: '0',
      LOG_LEVEL: 'warn',
    });
    for (const [name, value] of Object.entries(options.overrides)) {
      if (value === undefined) delete env[name];
      else env[name] = value;
    }
    this.env = env;

    const logDir = process.env.KEYFRAME_HARNESS_LOG_DIR;
    this.logCopy = logDir ? createWriteStream(path.join(logDir, `${this.label}-${this.port}.log`), { flags: 'a' }) : null;
    this.child = spawnTracked(process.execPath, [...SERVER_NODE_FLAGS, SERVER_BUNDLE], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const capture = (stream: NodeJS.ReadableStream | null, name: string) => {
      let pending = '';
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        pending += chunk;
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) this.pushLog(`[${name}] ${line}`);
      });
      stream?.on('end', () => pending && this.pushLog(`[${name}] ${pending}`));
    };
    capture(this.child.stdout, 'out');
    capture(this.child.stderr, 'err');
    this.exitPromise = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal, at: Date.now() };
        this.pushLog(`[harness] process exited code=${code} signal=${signal}`);
        resolve(this.exitInfo);
      });
      this.child.once('error', (error) => {
        this.pushLog(`[harness] spawn error: ${error.message}`);
        this.exitInfo = { code: null, signal: null, at: Date.now() };
        resolve(this.exitInfo);
      });
    });
  }

  static async start(options: StartOptions = {}): Promise<KeyframeProcess> {
    const profile = options.profile ?? E2E_PROFILE;
    const port = options.port ?? (await freePort());
    const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), `keyframe-${profile.name}-data-`));
    const overrides = { ...options.env };
    let ownedDatabase: OwnedDatabase | undefined;
    if (options.freshDatabase && options.dataDir === undefined && !('DATABASE_URL' in overrides)) {
      ownedDatabase = await options.freshDatabase();
      overrides.DATABASE_URL = ownedDatabase.url;
    }
    const server = new KeyframeProcess({
      label: options.label ?? `keyframe-${port}`,
      port,
      dataDir,
      ownsDataDir: options.dataDir === undefined,
      ownedDatabase,
      overrides,
      profile,
    });
    try {
      await server.waitUntilReady(options.ready ?? 'healthy', options.startTimeoutMs ?? profile.startTimeoutMs);
    } catch (error) {
      await server.dispose();
      throw error;
    }
    return server;
  }

  /** Starts a new server process on the same DATA_DIR and settings (new port); this one must have exited. */
  async restart(options: Omit<StartOptions, 'dataDir' | 'freshDatabase' | 'profile'> = {}): Promise<KeyframeProcess> {
    if (!this.exitInfo) throw new Error(`${this.label} is still running; stop() or kill9() it before restarting`);
    const next = await KeyframeProcess.start({
      env: { ...this.overrides, ...options.env },
      dataDir: this.dataDir,
      ready: options.ready,
      startTimeoutMs: options.startTimeoutMs,
      port: options.port,
      label: options.label ?? `${this.label}-restarted`,
      profile: this.profile,
    });
    // The restarted server now owns the data directory (and database) and removes them when disposed.
    if (this.ownsDataDir) {
      this.ownsDataDir = false;
      next.ownsDataDir = true;
    }
    next.ownedDatabase = this.ownedDatabase;
    this.ownedDatabase = undefined;
    next.logLines.unshift(...this.logLines.map((line) => `[previous run] ${line}`));
    return next;
  }

  get pid(): number {
    if (this.child.pid === undefined) throw new Error('server process has no pid');
    return this.child.pid;
  }

  /** The processes of this deployment (the benchmark measures one server or several alike). */
  get nodes(): readonly KeyframeProcess[] {
    return [this];
  }

  get running(): boolean {
    return this.exitInfo === undefined;
  }

  /** Resolves when the process exits (however it exits). */
  exited(): Promise<ExitInfo> {
    return this.exitPromise;
  }

  url(pathname: string): string {
    return `${this.baseUrl}${pathname}`;
  }

  assetDir(assetId: string): string {
    return path.join(this.dataDir, 'assets', assetId);
  }

  logs(): string {
    return this.logLines.join('\n');
  }

  /** The pino JSON records of the log (the server logs to stderr); info messages need LOG_LEVEL=info. */
  logRecords(): Array<Record<string, unknown>> {
    const records: Array<Record<string, unknown>> = [];
    for (const line of this.logLines) {
      const json = line.slice(line.indexOf(' ') + 1);
      if (!json.startsWith('{')) continue;
      try {
        records.push(JSON.parse(json) as Record<string, unknown>);
      } catch {
        // not JSON
      }
    }
    return records;
  }

  /** Log records whose fields match. */
  findLogRecords(match: Record<string, string>): Array<Record<string, unknown>> {
    return this.logRecords().filter((record) => Object.entries(match).every(([key, value]) => record[key] === value));
  }

  /** Graceful stop: SIGTERM and wait for the exit. */
  async stop({ timeoutMs = 20_000 }: { timeoutMs?: number } = {}): Promise<ExitInfo> {
    if (this.exitInfo) return this.exitInfo;
    this.pushLog('[harness] sending SIGTERM');
    this.signal('SIGTERM');
    const exit = await Promise.race([this.exitPromise, sleep(timeoutMs).then(() => undefined)]);
    if (!exit) {
      this.pushLog(`[harness] no exit ${timeoutMs} ms after SIGTERM; sending SIGKILL`);
      killTreeSync(this.pid);
      await this.exitPromise;
      throw new Error(`${this.label} did not exit within ${timeoutMs} ms of SIGTERM`);
    }
    killTreeSync(this.pid); // stragglers, if any
    return exit;
  }

  /** Crash: SIGKILL to the whole process group, no chance to clean up. */
  async kill9(): Promise<ExitInfo> {
    if (this.exitInfo) return this.exitInfo;
    this.pushLog('[harness] sending SIGKILL to the process group');
    this.killGroupSync();
    return this.exitPromise;
  }

  /** Stops the process if it still runs and removes the data directory (and database) if this server owns them. */
  async dispose(): Promise<void> {
    if (this.running) await this.stop().catch(() => undefined);
    if (this.ownsDataDir) {
      releaseDirectory(this.dataDir);
      this.ownsDataDir = false;
    }
    if (this.ownedDatabase) {
      await this.ownedDatabase.drop();
      this.ownedDatabase = undefined;
    }
  }

  killGroupSync(): void {
    try {
      process.kill(-this.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }

  signal(signal: NodeJS.Signals): void {
    try {
      process.kill(this.pid, signal);
    } catch {
      // already gone
    }
  }

  // --- CLI (runs against the same DATA_DIR while the server is up) ---

  async cli(args: string[]): Promise<unknown> {
    // The build's bundle when there is one (the e2e suite always has it, as it has the server's).
    const [command, entry] = existsSync(CLI_BUNDLE) ? [process.execPath, CLI_BUNDLE] : [TSX_BIN, CLI_ENTRY];
    // Its own process group, killed whole at the deadline: execFile's timeout signals the child
    // alone and then waits for its pipes to close, which a stuck grandchild can hold open for good.
    const timeoutMs = this.profile.cliTimeoutMs;
    const result = await runCommand(command, [entry, ...args, '--json'], { cwd: REPO_ROOT, env: this.env, timeoutMs });
    const lastLine = result.stdout.trim().split('\n').at(-1) ?? '';
    const failure =
      result.signal !== null ? `was killed (${result.signal}) after ${Math.round(result.wallMs)} ms (limit ${timeoutMs} ms)` : result.code !== 0 ? `exited with ${result.code}` : undefined;
    if (failure) {
      // Shaped like execFile's error (code, signal, stdout, stderr), for callers that inspect it.
      const { code, signal, stdout, stderr } = result;
      throw Object.assign(new Error(`keyframe ${args.join(' ')} ${failure}: ${lastLine}\n${stderr.slice(-2_000)}`), { code, signal, stdout, stderr });
    }
    return JSON.parse(lastLine) as unknown;
  }

  async createToken({ readOnly = false, name }: { readOnly?: boolean; name?: string } = {}): Promise<AccessToken> {
    const tokenName = name ?? `${this.profile.name}-${readOnly ? 'read-only' : 'read-write'}-${Date.now()}`;
    const token = (await this.cli(['tokens', 'create', '--name', tokenName, ...(readOnly ? ['--read-only'] : [])])) as AccessToken;
    if (!token.id || !token.secret) throw new Error(`tokens create printed no token: ${JSON.stringify(token)}`);
    return token;
  }

  async revokeToken(id: string): Promise<{ id: string; revoked: boolean }> {
    return (await this.cli(['tokens', 'revoke', id])) as { id: string; revoked: boolean };
  }

  /** Registers a webhook endpoint (every event is POSTed there from now on). */
  async createWebhookEndpoint(url: string): Promise<{ id: string; url: string; secret: string }> {
    const endpoint = (await this.cli(['webhooks', 'create', '--url', url])) as { id?: unknown; secret?: unknown };
    if (typeof endpoint.id !== 'string') throw new Error(`webhooks create returned ${JSON.stringify(endpoint)}`);
    return { id: endpoint.id, url, secret: typeof endpoint.secret === 'string' ? endpoint.secret : '' };
  }

  // --- internals ---

  private pushLog(line: string) {
    this.logCopy?.write(`${line}\n`);
    this.logLines.push(line);
    if (this.logLines.length > this.profile.maxLogLines) this.logLines.splice(0, this.logLines.length - this.profile.maxLogLines);
  }

  private async waitUntilReady(mode: 'healthy' | 'responding', timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = 'no answer yet';
    while (Date.now() < deadline) {
      if (this.exitInfo) {
        throw new Error(
          `${this.label} exited during startup (code ${this.exitInfo.code}, signal ${this.exitInfo.signal}):\n${this.logs()}`,
        );
      }
      try {
        last = await probeHealth(this.url('/api/health'));
        if (mode === 'responding' || last.startsWith('200 ')) return;
      } catch (error) {
        last = error instanceof Error ? error.message : String(error);
      }
      await sleep(250);
    }
    throw new Error(`${this.label} was not ${mode} within ${timeoutMs} ms (last: ${last}):\n${this.logs()}`);
  }
}
