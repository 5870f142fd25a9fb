import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { NginxProcess } from '../nginx';

// The peer for cached delivery: nginx, as a user would put it in front of static HLS files, started
// by the benchmark itself from a throw-away prefix (bench/.work/nginx-<pid>/) on a free loopback
// port (the process: ../nginx.ts). Tuned as people run it for static files: `worker_processes auto`,
// `sendfile`, `tcp_nopush`, keep-alive without a per-connection request cap, no access log. Every
// file is served at exactly the path Keyframe serves it, with Keyframe's Content-Type and
// Cache-Control (and the CORS header Keyframe sends on playback), so both send the same response.

export type NginxFile = { urlPath: string; body: Buffer; contentType: string; cacheControl: string | null };

const quote = (value: string) => `"${value.replace(/["\\]/g, '\\$&')}"`;

export const nginxConfig = ({ prefix, port, files }: { prefix: string; port: number; files: NginxFile[] }): string => {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const locations = files
    .map((file) =>
      [
        `    location = ${file.urlPath} {`,
        `      types { }`,
        `      default_type ${quote(file.contentType)};`,
        ...(file.cacheControl ? [`      add_header Cache-Control ${quote(file.cacheControl)};`] : []),
        `      add_header Access-Control-Allow-Origin "*";`,
        `    }`,
      ].join('\n'),
    )
    .join('\n');
  return `# Written by the Keyframe benchmark (harness/bench/nginx-static-files.ts); removed when it exits.
daemon off;
master_process on;
worker_processes auto;
${isRoot ? 'user nobody nogroup;\n' : ''}pid ${path.join(prefix, 'nginx.pid')};
error_log ${path.join(prefix, 'error.log')} warn;
events {
  worker_connections 1024;
}
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  tcp_nodelay on;
  keepalive_timeout 65s;
  keepalive_requests 1000000;
  server_tokens off;
  client_body_temp_path ${path.join(prefix, 'tmp', 'body')};
  proxy_temp_path ${path.join(prefix, 'tmp', 'proxy')};
  fastcgi_temp_path ${path.join(prefix, 'tmp', 'fastcgi')};
  uwsgi_temp_path ${path.join(prefix, 'tmp', 'uwsgi')};
  scgi_temp_path ${path.join(prefix, 'tmp', 'scgi')};
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:${port} reuseport;
    server_name localhost;
    root ${path.join(prefix, 'root')};
${locations}
  }
}
`;
};

/** Writes the files under the prefix's root/, world-readable: workers run as nobody when the benchmark is root. */
const writeFiles = (prefix: string, files: NginxFile[]) => {
  mkdirSync(path.join(prefix, 'tmp'), { recursive: true });
  for (const file of files) {
    const target = path.join(prefix, 'root', ...file.urlPath.split('/').filter(Boolean).map((part) => decodeURIComponent(part)));
    mkdirSync(path.dirname(target), { recursive: true, mode: 0o755 });
    writeFileSync(target, file.body, { mode: 0o644 });
  }
  for (let dir = path.join(prefix, 'root'); dir.startsWith(prefix); dir = path.dirname(dir)) chmodSync(dir, 0o755);
};

/** nginx serving `files`; `dispose()` stops it and removes its prefix. */
export class NginxStaticFiles extends NginxProcess {
  /** Writes the files and the configuration, starts nginx and waits until it serves the first file. */
  static async start({ nginx, workDir, files }: { nginx: string; workDir: string; files: NginxFile[] }): Promise<NginxStaticFiles> {
    const prefix = path.join(workDir, `nginx-${process.pid}`);
    return NginxProcess.launch(undefined, (port) => new NginxStaticFiles({
      label: `nginx-${port}`,
      port,
      binary: nginx,
      dir: prefix,
      prepare: (dir) => writeFiles(dir, files),
      config: ({ port: listenPort, dir }) => nginxConfig({ prefix: dir, port: listenPort, files }),
      readiness: { serves: files[0]?.urlPath ?? '/' },
      // Graceful: workers finish, master exits.
      stopSignal: 'SIGQUIT',
    }));
  }
}
