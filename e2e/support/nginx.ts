import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getFreePort } from './keyframe-server';

// Debian's nginx in front of Keyframe, configured the way the README recommends: as a caching
// reverse proxy in front of one server (the way a user would put one, or a CDN, in front of the
// stream origin), and as the plain round-robin load balancer of a cluster (E2E_CLUSTER).
// Only the process settings (no daemon, files in a temp dir) are the test's. Every instance runs in
// its own process group and is killed with it if the worker dies.

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
            # nginx drops Range from what it asks Keyframe (it stores whole responses) and cuts
            # the range itself; without this it answers a Range request for a response it may not
            # store (restricted signed playback is private) with the whole file.
            proxy_force_ranges on;

            add_header X-Cache-Status $upstream_cache_status always;
        }
    }
`;

/**
 * The load-balancer part of a cluster's configuration: the `http {}` contents the README's
 * "Scaling out" example shows. Plain round robin, nothing cached or buffered (a segment streams
 * while it is encoded, an upload chunk while it arrives), keep-alive to the nodes. The chunks of
 * one direct upload go to whichever node is next, as everything else does.
 */
export const roundRobinProxyConfig = ({ accessLog, upstreams, listen }: { accessLog: string; upstreams: string[]; listen: string }): string => `
    access_log ${accessLog};

    upstream keyframe {
        ${upstreams.map((upstream) => `server ${upstream};`).join('\n        ')}
        keepalive 16;
    }

    server {
        listen ${listen};
        client_max_body_size 0;          # uploads and API bodies are limited by Keyframe itself
        proxy_http_version 1.1;
        proxy_set_header Connection "";  # keep-alive to the nodes
        proxy_set_header Host $http_host;
        proxy_buffering off;
        proxy_request_buffering off;
        proxy_read_timeout 300s;

        location / {
            proxy_pass http://keyframe;
        }
    }
`;

const live = new Set<NginxProcess>();
process.once('exit', () => {
  for (const nginx of live) {
    nginx.killGroupSync();
    rmSync(nginx.dir, { recursive: true, force: true });
  }
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type NginxSetup = {
  label: string;
  port: number;
  /** The `http {}` contents; `inDir` names a file in the instance's temp dir. */
  httpConfig: (listen: string, inDir: (name: string) => string) => string;
  /**
   * `upstream-healthy`: wait for Keyframe's /api/health 200 through nginx. `listening`: nginx has
   * bound its port (the nodes behind it are started afterwards, knowing the proxy's URL).
   */
  readiness: 'upstream-healthy' | 'listening';
};

/** One nginx master in the foreground, its configuration, logs and temp files in a temp dir. */
export class NginxProcess {
  readonly label: string;
  readonly port: number;
  readonly baseUrl: string;
  readonly dir: string;
  readonly configPath: string;
  private readonly readiness: NginxSetup['readiness'];
  private readonly child: ChildProcess;
  private output = '';
  private exited: Promise<void>;
  private running = true;

  protected constructor(setup: NginxSetup) {
    this.label = setup.label;
    this.port = setup.port;
    this.readiness = setup.readiness;
    this.baseUrl = `http://127.0.0.1:${setup.port}`;
    this.dir = mkdtempSync(path.join(os.tmpdir(), 'keyframe-e2e-nginx-'));
    // Worker processes run as an unprivileged user when the master runs as root.
    chmodSync(this.dir, 0o755);
    this.configPath = path.join(this.dir, 'nginx.conf');
    const inDir = (name: string) => path.join(this.dir, name);
    writeFileSync(this.configPath, `# Generated by e2e/support/nginx.ts for one test.
daemon off;
master_process on;
worker_processes 1;
pid ${inDir('nginx.pid')};
error_log ${inDir('error.log')} notice;

events {
    worker_connections 1024;
}

http {
    client_body_temp_path ${inDir('tmp-body')};
    proxy_temp_path ${inDir('tmp-proxy')};
    fastcgi_temp_path ${inDir('tmp-fastcgi')};
    uwsgi_temp_path ${inDir('tmp-uwsgi')};
    scgi_temp_path ${inDir('tmp-scgi')};
${setup.httpConfig(`127.0.0.1:${setup.port}`, inDir)}}
`);
    this.child = spawn(NGINX_BIN, ['-p', this.dir, '-c', this.configPath, '-e', inDir('error.log')], {
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

  /** Starts `create(port)` on `port`, or on a free port, trying another one if it was taken meanwhile. */
  protected static async launch<T extends NginxProcess>(port: number | undefined, create: (port: number) => T): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      const nginx = create(port ?? (await getFreePort()));
      try {
        await nginx.waitUntilListening(15_000);
        return nginx;
      } catch (error) {
        const portTaken = nginx.logs().includes('Address already in use');
        await nginx.dispose();
        if (!portTaken || port !== undefined || attempt >= 3) throw error;
      }
    }
  }

  url(pathname: string): string {
    return `${this.baseUrl}${pathname}`;
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
      if (this.readiness === 'listening') {
        // No request may go through before the nodes are up: nginx would mark them failed for 10 s.
        // nginx writes its pid file once it has bound its port (it exits if the port is taken).
        if (existsSync(path.join(this.dir, 'nginx.pid'))) return;
        last = 'no pid file yet';
        await sleep(100);
        continue;
      }
      try {
        const response = await fetch(this.url('/api/health'), { signal: AbortSignal.timeout(2_000) });
        await response.arrayBuffer();
        // Keyframe's answer through nginx, not another process that took the port.
        if (response.status === 200 && response.headers.get('server')?.startsWith('nginx')) return;
        last = `status ${response.status}, Server: ${response.headers.get('server')}`;
      } catch (error) {
        last = error instanceof Error ? error.message : String(error);
      }
      await sleep(100);
    }
    throw new Error(`${this.label} did not answer within ${timeoutMs} ms (last: ${last}):\n${this.logs()}`);
  }
}

/** A caching reverse proxy in front of one Keyframe server (the CDN test). */
export class NginxCache extends NginxProcess {
  static async start(options: NginxCacheOptions): Promise<NginxCache> {
    return NginxProcess.launch(options.port, (port) => new NginxCache({
      label: options.label ?? `nginx-${port}`,
      port,
      readiness: 'upstream-healthy',
      httpConfig: (listen, inDir) =>
        recommendedCacheConfig({ cacheDir: inDir('cache'), accessLog: inDir('access.log'), upstream: `127.0.0.1:${options.upstreamPort}`, listen, cacheKey: options.cacheKey }),
    }));
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
}

/** The round-robin load balancer of a cluster, started before the nodes behind it. */
export class NginxRoundRobin extends NginxProcess {
  static async start({ upstreamPorts, port, label }: { upstreamPorts: number[]; port?: number; label?: string }): Promise<NginxRoundRobin> {
    return NginxProcess.launch(port, (chosen) => new NginxRoundRobin({
      label: label ?? `nginx-round-robin-${chosen}`,
      port: chosen,
      readiness: 'listening',
      httpConfig: (listen, inDir) =>
        roundRobinProxyConfig({ accessLog: inDir('access.log'), upstreams: upstreamPorts.map((upstream) => `127.0.0.1:${upstream}`), listen }),
    }));
  }
}
