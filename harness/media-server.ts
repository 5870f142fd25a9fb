import { createReadStream, existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import path from 'node:path';
import { writeFileHeaders as writeHeadersFor } from './static-server';

// A static file server on 127.0.0.1 that plays "the internet" for ingest tests. It serves the
// generated fixtures and, when present, the shared media folder, by file name:
//
//   /<file>                          the file, with Content-Length
//   /missing                         404
//   /slow/<file>                     200 at once, then a trickle of bytes that never finishes
//   /slow-then-fast/<file>[?delay_ms=4000]
//                                    no answer for delay_ms (default 4 s), then the file at full speed
//   /slow-once/<file>?key=K          first request for key K trickles forever (like /slow/),
//                                    later requests for K get the file at full speed
//   /throttled/<file>?bps=N[&cut_at=B]
//                                    the file at N bytes/s per connection; with cut_at, a response
//                                    to a request without Range is cut off after B bytes
//   /ranges-trickle/<file>           the file at full speed, but a Range request gets its 206
//                                    headers and then a trickle that never finishes
//   /redirect?to=<path or URL>       302 to that location
//
// Files are served with Range support (206, If-Range against Last-Modified), as web servers,
// object stores and CDNs do.

export type RecordedRequest = { method: string; path: string; at: number; range: string | null; finishedAt: number | null };

const CONTENT_TYPES: Record<string, string> = {
  '.mp4': 'video/mp4',
  '.m4a': 'audio/mp4',
  '.mp3': 'audio/mpeg',
  '.mov': 'video/quicktime',
  '.webm': 'video/webm',
  '.txt': 'text/plain; charset=utf-8',
  '.vtt': 'text/vtt',
};

const TRICKLE_BYTES = 64;
const TRICKLE_INTERVAL_MS = 250;
const DEFAULT_STALL_MS = 4_000;

export class MediaServer {
  readonly requests: RecordedRequest[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly slowOnceKeys = new Set<string>();
  private server!: http.Server;
  baseUrl = '';

  private constructor(private readonly roots: string[]) {}

  static async start({ roots }: { roots: string[] }): Promise<MediaServer> {
    const media = new MediaServer(roots.filter((root) => existsSync(root)));
    media.server = http.createServer((request, response) => {
      media.handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
        response.end(String(error));
      });
    });
    media.server.on('connection', (socket) => {
      media.sockets.add(socket);
      socket.once('close', () => media.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => media.server.listen(0, '127.0.0.1', resolve));
    media.baseUrl = `http://127.0.0.1:${(media.server.address() as AddressInfo).port}`;
    return media;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(pathname: string): string {
    return `${this.baseUrl}${pathname}`;
  }

  fileUrl(file: string): string {
    return this.url(`/${encodeURIComponent(file)}`);
  }

  slowUrl(file: string): string {
    return this.url(`/slow/${encodeURIComponent(file)}`);
  }

  slowThenFastUrl(file: string, { delayMs = DEFAULT_STALL_MS, key }: { delayMs?: number; key?: string } = {}): string {
    const query = new URLSearchParams({ delay_ms: String(delayMs), ...(key && { key }) });
    return this.url(`/slow-then-fast/${encodeURIComponent(file)}?${query}`);
  }

  slowOnceUrl(file: string, key: string): string {
    return this.url(`/slow-once/${encodeURIComponent(file)}?key=${encodeURIComponent(key)}`);
  }

  throttledUrl(file: string, { bytesPerSecond, cutAt }: { bytesPerSecond: number; cutAt?: number }): string {
    const query = new URLSearchParams({ bps: String(bytesPerSecond), ...(cutAt !== undefined && { cut_at: String(cutAt) }) });
    return this.url(`/throttled/${encodeURIComponent(file)}?${query}`);
  }

  rangesTrickleUrl(file: string): string {
    return this.url(`/ranges-trickle/${encodeURIComponent(file)}`);
  }

  redirectUrl(to: string): string {
    return this.url(`/redirect?to=${encodeURIComponent(to)}`);
  }

  get missingUrl(): string {
    return this.url('/missing');
  }

  /** Requests whose path (including the query) contains `fragment`. */
  requestsMatching(fragment: string): RecordedRequest[] {
    return this.requests.filter((request) => request.path.includes(fragment));
  }

  async waitForRequest(fragment: string, { count = 1, timeoutMs = 20_000 } = {}): Promise<RecordedRequest[]> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const matching = this.requestsMatching(fragment);
      if (matching.length >= count) return matching;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`media server did not receive ${count} request(s) matching "${fragment}" within ${timeoutMs} ms`);
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private resolveFile(name: string): string | undefined {
    if (!name || name.includes('/') || name.includes('\\') || name.startsWith('.')) return undefined;
    for (const root of this.roots) {
      const candidate = path.join(root, name);
      if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
    }
    return undefined;
  }

  private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.baseUrl);
    const recorded: RecordedRequest = {
      method: request.method ?? 'GET',
      path: `${url.pathname}${url.search}`,
      at: Date.now(),
      range: request.headers.range ?? null,
      finishedAt: null,
    };
    this.requests.push(recorded);
    response.once('finish', () => (recorded.finishedAt = Date.now()));
    const segments = url.pathname.split('/').filter(Boolean).map((segment) => decodeURIComponent(segment));

    if (url.pathname === '/missing') return notFound(response);
    if (url.pathname === '/redirect') {
      const to = url.searchParams.get('to');
      if (!to) return notFound(response);
      response.writeHead(302, { location: new URL(to, this.baseUrl).toString(), 'content-length': '0' });
      response.end();
      return;
    }

    const [first, second] = segments;
    if (segments.length === 2 && second) {
      const file = this.resolveFile(second);
      if (!file) return notFound(response);
      if (first === 'slow') return this.trickleForever(file, response);
      if (first === 'ranges-trickle') {
        if (!request.headers.range) return sendFile(file, request, response);
        return this.sendThrottled(file, request, response, TRICKLE_BYTES * (1000 / TRICKLE_INTERVAL_MS), null);
      }
      if (first === 'throttled') {
        const bytesPerSecond = Number(url.searchParams.get('bps') ?? 1_000_000);
        const cutAt = url.searchParams.get('cut_at');
        return this.sendThrottled(file, request, response, bytesPerSecond, cutAt === null || request.headers.range ? null : Number(cutAt));
      }
      if (first === 'slow-then-fast') {
        const delayMs = Number(url.searchParams.get('delay_ms') ?? DEFAULT_STALL_MS);
        await this.delay(delayMs, response);
        if (response.destroyed || response.writableEnded) return;
        return sendFile(file, request, response);
      }
      if (first === 'slow-once') {
        const key = `${second}?${url.searchParams.get('key') ?? ''}`;
        if (!this.slowOnceKeys.has(key)) {
          this.slowOnceKeys.add(key);
          return this.trickleForever(file, response);
        }
        return sendFile(file, request, response);
      }
      return notFound(response);
    }
    if (segments.length === 1 && first) {
      const file = this.resolveFile(first);
      if (!file) return notFound(response);
      return sendFile(file, request, response);
    }
    return notFound(response);
  }

  private async sendThrottled(
    file: string,
    request: http.IncomingMessage,
    response: http.ServerResponse,
    bytesPerSecond: number,
    cutAt: number | null,
  ): Promise<void> {
    const bytes = await readFile(file);
    const { start, end } = writeFileHeaders(file, request, response);
    if (request.method === 'HEAD') {
      response.end();
      return;
    }
    const tickMs = 50;
    const perTick = Math.max(1, Math.round((bytesPerSecond * tickMs) / 1000));
    let offset = start;
    const tick = () => {
      if (response.destroyed) return;
      const next = Math.min(end, offset + perTick);
      if (cutAt !== null && next - start > cutAt) {
        response.destroy();
        return;
      }
      response.write(bytes.subarray(offset, next));
      offset = next;
      if (offset >= end) {
        response.end();
        return;
      }
      this.later(tickMs, tick);
    };
    tick();
  }

  // A timer that close() cancels, so a closed server leaves nothing scheduled.
  private later(ms: number, run: () => void): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, ms);
    this.timers.add(timer);
    return timer;
  }

  private delay(ms: number, response: http.ServerResponse): Promise<void> {
    return new Promise((resolve) => {
      const timer = this.later(ms, resolve);
      response.once('close', () => {
        clearTimeout(timer);
        this.timers.delete(timer);
        resolve();
      });
    });
  }

  private async trickleForever(file: string, response: http.ServerResponse): Promise<void> {
    const bytes = await readFile(file);
    response.writeHead(200, { 'content-type': contentType(file) });
    response.flushHeaders();
    let offset = 0;
    const tick = () => {
      if (response.destroyed) return;
      const chunk = Buffer.alloc(TRICKLE_BYTES);
      for (let index = 0; index < TRICKLE_BYTES; index += 1) chunk[index] = bytes[(offset + index) % bytes.length] ?? 0;
      offset += TRICKLE_BYTES;
      response.write(chunk);
      this.later(TRICKLE_INTERVAL_MS, tick);
    };
    tick();
  }
}

const contentType = (file: string) => CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';

const notFound = (response: http.ServerResponse) => {
  response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
  response.end('Not found\n');
};

// Status and headers for `file`, honouring Range (and If-Range); returns the byte span to send.
const writeFileHeaders = (file: string, request: http.IncomingMessage, response: http.ServerResponse): { start: number; end: number } => {
  const { size, mtime } = statSync(file);
  return writeHeadersFor(request, response, { size, modifiedAt: mtime, contentType: contentType(file) });
};

const sendFile = (file: string, request: http.IncomingMessage, response: http.ServerResponse) => {
  const { start, end } = writeFileHeaders(file, request, response);
  if (request.method === 'HEAD' || end === start) {
    response.end();
    return;
  }
  const stream = createReadStream(file, { start, end: end - 1 });
  stream.on('error', () => response.destroy());
  response.once('close', () => stream.destroy());
  stream.pipe(response);
};
