import type { ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePort } from './keyframe-server';
import { killTreeSync, spawnTracked } from './processes';
import { errorMessage, sleep } from './stats';

// The peer for cached delivery: nginx, as a user would put it in front of static HLS files, started
// by the benchmark itself from a throw-away prefix (bench/.work/nginx-<pid>/) on a free loopback
// port, in the foreground (`daemon off`) and in its own process group, so the benchmark's exit
// handlers stop it. Tuned as people run it for static files: `worker_processes auto`, `sendfile`,
// `tcp_nopush`, keep-alive without a per-connection request cap, no access log. Every file is
// served at exactly the path Keyframe serves it, with Keyframe's Content-Type and Cache-Control
// (and the CORS header Keyframe sends on playback), so both send the same response.

export type NginxFile = { urlPath: string; body: Buffer; contentType: string; cacheControl: string | null };

export type NginxServer = {
  baseUrl: string;
  prefix: string;
  config: string;
  pid: number | undefined;
  stop: () => Promise<void>;
};

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
  return `# Written by the Keyframe benchmark (lib/bench/nginx.ts); removed when it exits.
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

/** Writes the files and the configuration, starts nginx and waits until it answers. */
export const startNginx = async ({ nginx, workDir, files }: { nginx: string; workDir: string; files: NginxFile[] }): Promise<NginxServer> => {
  const prefix = path.join(workDir, `nginx-${process.pid}`);
  rmSync(prefix, { recursive: true, force: true });
  mkdirSync(path.join(prefix, 'tmp'), { recursive: true });
  // Workers run as nobody when the benchmark is root: everything they read must be world-readable.
  for (const file of files) {
    const target = path.join(prefix, 'root', ...file.urlPath.split('/').filter(Boolean).map((part) => decodeURIComponent(part)));
    mkdirSync(path.dirname(target), { recursive: true, mode: 0o755 });
    writeFileSync(target, file.body, { mode: 0o644 });
  }
  for (let dir = path.join(prefix, 'root'); dir.startsWith(prefix); dir = path.dirname(dir)) chmodSync(dir, 0o755);
  const port = await freePort();
  const config = nginxConfig({ prefix, port, files });
  const configPath = path.join(prefix, 'nginx.conf');
  writeFileSync(configPath, config);
  // -e: the startup error log too, so nginx never touches /var/log/nginx.
  const child: ChildProcess = spawnTracked(nginx, ['-p', prefix, '-c', configPath, '-e', path.join(prefix, 'error.log')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', () => {
      exited = true;
      resolve();
    });
    child.once('error', (error) => {
      exited = true;
      output += errorMessage(error);
      resolve();
    });
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (!exited && child.pid !== undefined) {
      try {
        process.kill(child.pid, 'SIGQUIT'); // graceful: workers finish, master exits
      } catch {
        // gone
      }
      await Promise.race([exit, sleep(5_000)]);
    }
    if (child.pid !== undefined) killTreeSync(child.pid);
    rmSync(prefix, { recursive: true, force: true });
  };
  const probePath = files[0]?.urlPath ?? '/';
  const deadline = Date.now() + 15_000;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    if (exited) break;
    try {
      const response = await fetch(`${baseUrl}${probePath}`, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      if (response.status === 200) return { baseUrl, prefix, config, pid: child.pid, stop };
      last = `HTTP ${response.status}`;
    } catch (error) {
      last = errorMessage(error);
    }
    await sleep(100);
  }
  const errorLog = existsSync(path.join(prefix, 'error.log')) ? readFileSync(path.join(prefix, 'error.log'), 'utf8').slice(-1500) : '';
  await stop();
  throw new Error(`nginx did not serve ${probePath} (last: ${last}); output: ${output.trim().slice(-800)} ${errorLog.trim()}`);
};
