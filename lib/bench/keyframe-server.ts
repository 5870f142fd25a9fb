import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SERVER_ENV, SERVER_NODE_FLAGS } from '../server/node-flags';
import { freePort } from '../setup/free-port.mjs';
import { killTreeSync, ownDirectory, releaseDirectory, runCommand, spawnTracked } from './processes';
import { errorMessage, sleep } from './stats';

// Starts a real Keyframe server (the server bundle `npm start` runs) on a free port with
// a fresh DATA_DIR, in its own process group, and stops it again.

// Configuration the server reads; cleared from the inherited environment so the shell's settings
// cannot leak into the measured server.
const KEYFRAME_VARIABLES = [
  'NODE_ENV', 'PORT', 'HOST', 'BASE_URL', 'STREAM_URL', 'DATA_DIR', 'DATABASE_URL', 'FFMPEG_PATH', 'FFPROBE_PATH',
  'ALLOW_PRIVATE_INPUT_URLS', 'MAX_INPUT_BYTES', 'MAX_INPUT_DURATION_SECONDS', 'INPUT_DOWNLOAD_TIMEOUT_SECONDS',
  'INGEST_CONCURRENCY', 'INGEST_CPU_CONCURRENCY', 'JIT_ENCODE_CONCURRENCY', 'RENDITION_CACHE_MAX_BYTES', 'PREFETCH_SEGMENTS',
  'ASSET_GET_RATE_PER_SECOND', 'ASSET_GET_RATE_BURST', 'LOG_LEVEL', 'FILL_IDLE_ENCODERS', 'METRICS_TOKEN',
  'WEBHOOK_RETRY_BASE_SECONDS', 'WEBHOOK_TIMEOUT_SECONDS', 'KEYFRAME_ROLE', 'REDIS_URL', 'REDIS_KEY_PREFIX',
  'S3_BUCKET', 'S3_ENDPOINT', 'S3_REGION', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'S3_FORCE_PATH_STYLE', 'S3_PUBLIC_URL',
  'RTMP_PORT', 'RTMP_URL', 'LIVE_MAX_STREAMS', 'LIVE_X264_PRESET',
];

const MAX_LOG_LINES = 500;

export type AccessToken = { id: string; secret: string };

/** One server process: where its ffmpeg children hang and where it keeps its files. */
export type ServerNode = { pid: number | undefined; dataDir: string };

/**
 * What the time-to-ready and segment measurements need of what they measure: one server, or an
 * app node and a worker node. `baseUrl` and `dataDir` are the node that answers the API and
 * playback; `nodes` every process that may run work after an asset is ready.
 */
export type Deployment = {
  readonly baseUrl: string;
  readonly dataDir: string;
  readonly nodes: readonly ServerNode[];
  findLogRecords(match: Record<string, string>): Array<Record<string, unknown>>;
};

export { freePort };

/** Builds the Next.js app only when there is no production build at all. */
export const ensureProductionBuild = async (repoRoot: string, log: (line: string) => void): Promise<{ built: boolean }> => {
  if (existsSync(path.join(repoRoot, '.next', 'BUILD_ID')) && existsSync(path.join(repoRoot, '.next', 'keyframe', 'server.mjs'))) {
    return { built: false };
  }
  log('no production build (.next/BUILD_ID, .next/keyframe/server.mjs); running npm run build…');
  const result = await runCommand('npm', ['run', 'build'], { cwd: repoRoot, timeoutMs: 20 * 60_000 });
  if (result.code !== 0) throw new Error(`npm run build failed:\n${(result.stdout + result.stderr).trim().slice(-2000)}`);
  return { built: true };
};

export class KeyframeServer implements Deployment {
  readonly baseUrl: string;
  readonly dataDir: string;
  readonly env: NodeJS.ProcessEnv;
  private readonly child: ChildProcess;
  private readonly logLines: string[] = [];
  private exited: Promise<void>;
  private running = true;

  private constructor(
    private readonly repoRoot: string,
    port: number,
    dataDir: string,
    overrides: Record<string, string>,
  ) {
    this.baseUrl = `http://127.0.0.1:${port}`;
    this.dataDir = dataDir;
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of KEYFRAME_VARIABLES) delete env[name];
    Object.assign(env, {
      ...SERVER_ENV,
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      BASE_URL: this.baseUrl,
      DATA_DIR: dataDir,
      ALLOW_PRIVATE_INPUT_URLS: 'true',
      // Live ingest only where a test asks for it (with a port of its own): servers run side by side.
      RTMP_PORT: '0',
      LOG_LEVEL: 'warn',
      ...overrides,
    });
    this.env = env;
    this.child = spawnTracked(process.execPath, [...SERVER_NODE_FLAGS, path.join('.next', 'keyframe', 'server.mjs')], {
      cwd: repoRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const [stream, name] of [
      [this.child.stdout, 'out'],
      [this.child.stderr, 'err'],
    ] as const) {
      let pending = '';
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        pending += chunk;
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) this.pushLog(`[${name}] ${line}`);
      });
    }
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.running = false;
        this.pushLog(`[bench] server exited code=${code} signal=${signal}`);
        resolve();
      });
      this.child.once('error', (error) => {
        this.running = false;
        this.pushLog(`[bench] spawn error: ${error.message}`);
        resolve();
      });
    });
  }

  private get tsx(): string {
    return path.join(this.repoRoot, 'node_modules', '.bin', 'tsx');
  }

  static async start({
    repoRoot,
    env = {},
    timeoutMs = 90_000,
  }: {
    repoRoot: string;
    env?: Record<string, string>;
    timeoutMs?: number;
  }): Promise<KeyframeServer> {
    const dataDir = ownDirectory(mkdtempSync(path.join(os.tmpdir(), 'keyframe-bench-data-')));
    const server = new KeyframeServer(repoRoot, await freePort(), dataDir, env);
    try {
      await server.waitUntilHealthy(timeoutMs);
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get nodes(): readonly ServerNode[] {
    return [this];
  }

  logs(): string {
    return this.logLines.join('\n');
  }

  /** pino JSON lines (the server logs to stderr) whose fields match; info messages need LOG_LEVEL=info. */
  findLogRecords(match: Record<string, string>): Array<Record<string, unknown>> {
    const found: Array<Record<string, unknown>> = [];
    for (const line of this.logLines) {
      const json = line.slice(line.indexOf(' ') + 1);
      if (!json.startsWith('{')) continue;
      try {
        const record = JSON.parse(json) as Record<string, unknown>;
        if (Object.entries(match).every(([key, value]) => record[key] === value)) found.push(record);
      } catch {
        // not JSON
      }
    }
    return found;
  }

  /** Runs the `keyframe` CLI against this server's database and returns its --json output. */
  private async cli(args: string[]): Promise<Record<string, unknown>> {
    const result = await runCommand(this.tsx, [path.join('lib', 'cli', 'keyframe.ts'), ...args, '--json'], {
      cwd: this.repoRoot,
      env: this.env,
      timeoutMs: 60_000,
    });
    const lastLine = result.stdout.trim().split('\n').at(-1) ?? '';
    let parsed: Record<string, unknown> | null = null;
    try {
      parsed = JSON.parse(lastLine) as Record<string, unknown>;
    } catch {
      // reported below
    }
    if (result.code !== 0 || parsed === null) {
      throw new Error(`keyframe ${args.slice(0, 2).join(' ')} failed (exit ${result.code}): ${(result.stdout + result.stderr).trim().slice(-1000)}`);
    }
    return parsed;
  }

  async createToken(): Promise<AccessToken> {
    const token = await this.cli(['tokens', 'create', '--name', 'bench']);
    if (typeof token.id !== 'string' || typeof token.secret !== 'string') throw new Error(`tokens create returned ${JSON.stringify(token)}`);
    return { id: token.id, secret: token.secret };
  }

  /** Registers a webhook endpoint (every event is POSTed there from now on). */
  async createWebhookEndpoint(url: string): Promise<{ id: string; url: string }> {
    const endpoint = await this.cli(['webhooks', 'create', '--url', url]);
    if (typeof endpoint.id !== 'string') throw new Error(`webhooks create returned ${JSON.stringify(endpoint)}`);
    return { id: endpoint.id, url };
  }

  /** SIGTERM, then SIGKILL to the group and any leftover descendants; removes DATA_DIR. */
  async stop({ keepData = false }: { keepData?: boolean } = {}): Promise<void> {
    const pid = this.child.pid;
    if (this.running && pid !== undefined) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // already gone
      }
      await Promise.race([this.exited, sleep(15_000)]);
    }
    if (pid !== undefined) killTreeSync(pid);
    await Promise.race([this.exited, sleep(5_000)]);
    if (!keepData) releaseDirectory(this.dataDir);
  }

  private pushLog(line: string) {
    this.logLines.push(line);
    if (this.logLines.length > MAX_LOG_LINES) this.logLines.splice(0, this.logLines.length - MAX_LOG_LINES);
  }

  private async waitUntilHealthy(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = 'no answer yet';
    while (Date.now() < deadline) {
      if (!this.running) throw new Error(`the Keyframe server exited during startup:\n${this.logs()}`);
      try {
        const response = await fetch(`${this.baseUrl}/api/health`, { signal: AbortSignal.timeout(2_000) });
        last = `${response.status} ${(await response.text()).slice(0, 300)}`;
        if (response.status === 200) return;
      } catch (error) {
        last = errorMessage(error);
      }
      await sleep(200);
    }
    throw new Error(`the Keyframe server was not healthy within ${timeoutMs} ms (last: ${last}):\n${this.logs()}`);
  }
}
