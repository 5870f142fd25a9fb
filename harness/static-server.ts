import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import parseRange from 'range-parser';

// A tiny static file server on 127.0.0.1 that the Keyframe server downloads the inputs from:
// Content-Length and single byte ranges (as any web server or object store), streamed from disk.

export type StaticServer = {
  /** URL of a file registered under `name`. */
  url: (name: string) => string;
  /** Serves one more file. */
  add: (name: string, filePath: string) => void;
  close: () => Promise<void>;
};

/**
 * Writes the status and headers for a file of `size` bytes, honouring a single Range (and If-Range
 * against Last-Modified) as web servers and object stores do; returns the byte span [start, end) to send.
 */
export const writeFileHeaders = (
  request: http.IncomingMessage,
  response: http.ServerResponse,
  { size, modifiedAt, contentType }: { size: number; modifiedAt: Date; contentType: string },
): { start: number; end: number } => {
  const lastModified = modifiedAt.toUTCString();
  const ifRange = request.headers['if-range'];
  const ranges = request.headers.range && (!ifRange || ifRange === lastModified) ? parseRange(size, request.headers.range) : null;
  const common = { 'content-type': contentType, 'accept-ranges': 'bytes', 'last-modified': lastModified };
  if (ranges === -1) {
    response.writeHead(416, { ...common, 'content-range': `bytes */${size}` });
    return { start: 0, end: 0 };
  }
  const single = Array.isArray(ranges) && ranges.length === 1 ? ranges[0] : undefined;
  if (single) {
    response.writeHead(206, {
      ...common,
      'content-length': String(single.end - single.start + 1),
      'content-range': `bytes ${single.start}-${single.end}/${size}`,
    });
    return { start: single.start, end: single.end + 1 };
  }
  response.writeHead(200, { ...common, 'content-length': String(size) });
  return { start: 0, end: size };
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
      ({ size, mtime }) => {
        const { start, end } = writeFileHeaders(request, response, { size, modifiedAt: mtime, contentType: 'video/mp4' });
        if (request.method === 'HEAD' || end === start) {
          response.end();
          return;
        }
        const stream = createReadStream(filePath, { start, end: end - 1 });
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
