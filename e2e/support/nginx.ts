import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { instanceConfig, NginxProcess } from '../../harness/nginx';

// Debian's nginx in front of Keyframe, configured the way docs/delivery.md and docs/scaling-out.md
// recommend: as a caching reverse proxy in front of one server (the way a user would put one, or a
// CDN, in front of the stream origin), and as the plain round-robin load balancer of a cluster
// (E2E_CLUSTER).
// Only the process settings (no daemon, files in a temp dir) are the test's; the process itself is
// harness/nginx.ts.

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

/** The cache part of the configuration: the `http {}` contents docs/delivery.md recommends. */
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
 * The load-balancer part of a cluster's configuration: the `http {}` contents docs/scaling-out.md's
 * "Several nodes" example shows. Plain round robin, nothing cached or buffered (a segment streams
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

/** A caching reverse proxy in front of one Keyframe server (the CDN test). */
export class NginxCache extends NginxProcess {
  static async start(options: NginxCacheOptions): Promise<NginxCache> {
    return NginxProcess.launch(options.port, (port) => new NginxCache({
      label: options.label ?? `nginx-${port}`,
      port,
      readiness: 'upstream-healthy',
      config: ({ listen, inDir }) =>
        instanceConfig(
          recommendedCacheConfig({ cacheDir: inDir('cache'), accessLog: inDir('access.log'), upstream: `127.0.0.1:${options.upstreamPort}`, listen, cacheKey: options.cacheKey }),
          inDir,
        ),
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
      config: ({ listen, inDir }) =>
        instanceConfig(roundRobinProxyConfig({ accessLog: inDir('access.log'), upstreams: upstreamPorts.map((upstream) => `127.0.0.1:${upstream}`), listen }), inDir),
    }));
  }
}
