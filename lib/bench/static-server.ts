import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

// A tiny static file server on 127.0.0.1 that the Keyframe server downloads the inputs from:
// Content-Length, streamed from disk, nothing else.

export type StaticServer = {
  /** URL of a file registered under `name`. */
  url: (name: string) => string;
  /** Serves one more file. */
  add: (name: string, filePath: string) => void;
  close: () => Promise<void>;
};

export const startStaticServer = async (initialFiles: Record<string, string>): Promise<StaticServer> => {
  const files: Record<string, string> = { ...initialFiles };
  const server = http.createServer((request, response) => {
    const name = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname.slice(1));
    const filePath = Object.hasOwn(files, name) ? files[name] : undefined;
    if (!filePath || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    stat(filePath).then(
      ({ size }) => {
        response.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(size) });
        if (request.method === 'HEAD') {
          response.end();
          return;
        }
        const stream = createReadStream(filePath);
        stream.on('error', () => response.destroy());
        response.on('close', () => stream.destroy());
        stream.pipe(response);
      },
      () => response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n'),
    );
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: (name) => `http://127.0.0.1:${port}/${encodeURIComponent(name)}`,
    add: (name, filePath) => {
      files[name] = filePath;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
