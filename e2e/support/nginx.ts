import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getFreePort } from './keyframe-server';

// Debian's nginx as a caching reverse proxy in front of a Keyframe server, the way a user would put
// one (or a CDN) in front of the stream origin. The cache part of the configuration is exactly what
// the README recommends; only the process settings (no daemon, files in a temp dir) are the test's.
// Every instance runs in its own process group and is killed with it if the worker dies.

export const NGINX_BIN = process.env.E2E_NGINX ?? '/usr/sbin/nginx';

/** nginx's default proxy cache key: the full request URI, query string (token, kfp) included. */
export const DEFAULT_CACHE_KEY = '$scheme$proxy_host$request_uri';

export type NginxCacheOptions = {
  /** Port of the Keyframe server on 127.0.0.1. */
  upstreamPort: number;
  /** Port to listen on (default: a free one). */
  port?: number;
  label?: string;
  /**
   * Only for showing what a wrong key breaks (e.g. `$scheme$proxy_host$uri`, which drops the query
   * string); every test runs with the default.
   */
  cacheKey?: string;
};

/** One line of the access log (the `keyframe_cache` format below). */
export type CacheLogEntry = {
  method: string;
  uri: string;
  status: number;
  /** `$upstream_cache_status`: MISS, HIT, EXPIRED, REVALIDATED, STALE, UPDATING, BYPASS, or '' (not cacheable). */
  cache: string;
  upstreamStatus: string;
  range: string;
  referer: string;
  bytes: number;
};

/** The cache part of the configuration: the `http {}` contents the README recommends. */
export const recommendedCacheConfig = ({ cacheDir, accessLog, upstream, listen, cacheKey = DEFAULT_CACHE_KEY }: {
  cacheDir: string;
  accessLog: string;
  upstream: string;
  listen: string;
  cacheKey?: string;
}): string => `
    # What the cache did for each request: HIT, MISS, EXPIRED, REVALIDATED, …
    log_format keyframe_cache escape=json '{"method":"$request_method","uri":"$request_uri","status":$status,'
        '"cache":"$upstream_cache_status","upstream_status":"$upstream_status","range":"$http_range",'
        '"referer":"$http_referer","bytes":$body_bytes_sent}';
    access_log ${accessLog} keyframe_cache;

    proxy_cache_path ${cacheDir} levels=1:2 keys_zone=keyframe:10m max_size=10g inactive=7d use_temp_path=off;

    upstream keyframe {
        server ${upstream};
        keepalive 16;
    }

    server {
        listen ${listen};

        location / {
            proxy_pass http://keyframe;
            proxy_http_version 1.1;
            proxy_set_header Connection "";

            proxy_cache keyframe;
            # nginx's default key. It must contain the whole request URI with its query string:
            # token, kfp and the image/rendition parameters decide what the response is.
            proxy_cache_key ${cacheKey};
            # Keyframe's Cache-Control decides what is stored and for how long (no proxy_cache_valid,
            # no proxy_ignore_headers): immutable segments for a year, playlists 10 s, private and
            # error responses never.
            proxy_cache_revalidate on;   # expired playlists: If-None-Match / If-Modified-Since → 304
            proxy_cache_lock on;         # one request to Keyframe per missing segment

            add_header X-Cache-Status $upstream_cache_status always;
        }
    }
`;

const live = new Set<NginxCache>();
process.once('exit', () => {
  for (const nginx of live) nginx.killGroupSync();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class NginxCache {
  readonly label: string;
  readonly port: number;
  readonly baseUrl: string;
  readonly dir: string;
  readonly configPath: string;
  private readonly child: ChildProcess;
  private output = '';
  private exited: Promise<void>;
  private running = true;

  private constructor({ label, port, dir, config }: { label: string; port: number; dir: string; config: string }) {
    this.label = label;
    this.port = port;
    this.baseUrl = `http://127.0.0.1:${port}`;
    this.dir = dir;
    this.configPath = path.join(dir, 'nginx.conf');
    writeFileSync(this.configPath, config);
    this.child = spawn(NGINX_BIN, ['-p', dir, '-c', this.configPath, '-e', path.join(dir, 'error.log')], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    live.add(this);
    for (const stream of [this.child.stdout, this.child.stderr]) {
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => (this.output += chunk));
    }
    this.exited = new Promise((resolve) => {
      const done = () => {
        this.running = false;
        live.delete(this);
        resolve();
      };
      this.child.once('exit', done);
      this.child.once('error', (error) => {
        this.output += `spawn error: ${error.message}\n`;
        done();
      });
    });
  }

  static async start(options: NginxCacheOptions): Promise<NginxCache> {
    const port = options.port ?? (await getFreePort());
    const dir = mkdtempSync(path.join(os.tmpdir(), 'keyframe-e2e-nginx-'));
    // Worker processes run as an unprivileged user when the master runs as root.
    chmodSync(dir, 0o755);
    const inDir = (name: string) => path.join(dir, name);
    const config = `# Generated by e2e/support/nginx.ts for one test run.
daemon off;
master_process on;
worker_processes 1;
pid ${inDir('nginx.pid')};
error_log ${inDir('error.log')} notice;

events {
    worker_connections 256;
}

http {
    client_body_temp_path ${inDir('tmp-body')};
    proxy_temp_path ${inDir('tmp-proxy')};
    fastcgi_temp_path ${inDir('tmp-fastcgi')};
    uwsgi_temp_path ${inDir('tmp-uwsgi')};
    scgi_temp_path ${inDir('tmp-scgi')};
${recommendedCacheConfig({ cacheDir: inDir('cache'), accessLog: inDir('access.log'), upstream: `127.0.0.1:${options.upstreamPort}`, listen: `127.0.0.1:${port}`, cacheKey: options.cacheKey })}}
`;
    const nginx = new NginxCache({ label: options.label ?? `nginx-${port}`, port, dir, config });
    try {
      await nginx.waitUntilListening(15_000);
    } catch (error) {
      await nginx.dispose();
      throw error;
    }
    return nginx;
  }

  url(pathname: string): string {
    return `${this.baseUrl}${pathname}`;
  }

  /** Every request nginx has logged so far, oldest first. */
  accessLog(): CacheLogEntry[] {
    const file = path.join(this.dir, 'access.log');
    if (!existsSync(file)) return [];
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const raw = JSON.parse(line) as Record<string, string | number>;
        return {
          method: String(raw.method),
          uri: String(raw.uri),
          status: Number(raw.status),
          cache: String(raw.cache),
          upstreamStatus: String(raw.upstream_status),
          range: String(raw.range),
          referer: String(raw.referer),
          bytes: Number(raw.bytes),
        };
      });
  }

  /** Configuration, error log and process output, for attaching to a failing test. */
  logs(): string {
    const read = (name: string) => {
      const file = path.join(this.dir, name);
      return existsSync(file) ? readFileSync(file, 'utf8') : '(none)';
    };
    return [
      `--- ${this.configPath}`, read('nginx.conf'),
      '--- error.log', read('error.log'),
      '--- access.log', read('access.log'),
      '--- process output', this.output || '(none)',
    ].join('\n');
  }

  /** Fast shutdown (SIGTERM to the master), SIGKILL to the group if it does not exit in time. */
  async stop(timeoutMs = 10_000): Promise<void> {
    if (!this.running) return;
    try {
      process.kill(this.child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
    const stopped = await Promise.race([this.exited.then(() => true), sleep(timeoutMs).then(() => false)]);
    this.killGroupSync(); // the worker and cache manager, if the master left them behind
    if (!stopped) await this.exited;
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }

  killGroupSync(): void {
    if (this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }

  private async waitUntilListening(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = 'no answer yet';
    while (Date.now() < deadline) {
      if (!this.running) throw new Error(`${this.label} exited during startup:\n${this.logs()}`);
      try {
        const response = await fetch(this.url('/api/health'), { signal: AbortSignal.timeout(2_000) });
        await response.arrayBuffer();
        if (response.status === 200) return;
        last = `status ${response.status}`;
      } catch (error) {
        last = error instanceof Error ? error.message : String(error);
      }
      await sleep(100);
    }
    throw new Error(`${this.label} did not answer within ${timeoutMs} ms (last: ${last}):\n${this.logs()}`);
  }
}
