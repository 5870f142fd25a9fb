import { randomBytes } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import parseRange from 'range-parser';
import type { GrowingFile } from './growing-file';
import { untilWritable } from '../utils/until-writable';

// Lets ffmpeg and ffprobe read an input that is still downloading, through a loopback HTTP URL
// that behaves like a complete file: any byte range can be asked for, and bytes that have not
// arrived yet are sent when they do instead of being read as zeros from the file's holes. If the
// download fails, the connection is cut, so the reader fails too rather than decode garbage.
// The URL carries a random per-server secret; the server listens on 127.0.0.1 only. A node runs one,
// started on first use (its runtime holds it, see lib/services/ingest/partial-sources.ts).

const READ_CHUNK_BYTES = 1 << 20;

type Entry = { file: GrowingFile; completedPath: string };

type Listening = { baseUrl: string; entries: Map<string, Entry> };

const startServer = async (): Promise<Listening> => {
  const entries = new Map<string, Entry>();
  const secret = randomBytes(16).toString('hex');
  const server = http.createServer((request, response) => {
    const [, prefix, key] = (request.url ?? '').split('/');
    const entry = prefix === secret && key ? entries.get(decodeURIComponent(key)) : undefined;
    if (!entry || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404).end();
      return;
    }
    serveEntry(entry, request, response).catch(() => response.destroy());
  });
  // Readers hold connections open while they wait for bytes; that is the point.
  server.requestTimeout = 0;
  server.headersTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  server.unref();
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}/${secret}/`, entries };
};

const openEither = async (entry: Entry): Promise<FileHandle> => {
  try {
    return await open(entry.file.path, 'r');
  } catch (error) {
    // Renamed into place between the lookup and the open: the download is complete.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return open(entry.completedPath, 'r');
    throw error;
  }
};

const serveEntry = async (entry: Entry, request: http.IncomingMessage, response: http.ServerResponse) => {
  const total = entry.file.totalBytes;
  const ranges = request.headers.range ? parseRange(total, request.headers.range, { combine: true }) : null;
  if (ranges === -1) {
    response.writeHead(416, { 'Content-Range': `bytes */${total}` }).end();
    return;
  }
  const single = Array.isArray(ranges) && ranges.type === 'bytes' && ranges.length === 1 ? ranges[0] : null;
  const start = single?.start ?? 0;
  const end = single ? single.end + 1 : total;
  response.writeHead(single ? 206 : 200, {
    'Accept-Ranges': 'bytes',
    'Content-Length': String(end - start),
    'Content-Type': 'application/octet-stream',
    ...(single && { 'Content-Range': `bytes ${start}-${end - 1}/${total}` }),
  });
  if (request.method === 'HEAD' || start === end) {
    response.end();
    return;
  }
  // The reader learns the size now, even if the first byte it asked for is still on its way.
  response.flushHeaders();
  const gone = new AbortController();
  response.once('close', () => gone.abort());
  const handle = await openEither(entry);
  try {
    let position = start;
    while (position < end && !gone.signal.aborted) {
      const available = await entry.file.waitForBytes(position, gone.signal);
      const length = Math.min(available, end, position + READ_CHUNK_BYTES) - position;
      const { bytesRead, buffer } = await handle.read(Buffer.allocUnsafe(length), 0, length, position);
      if (bytesRead === 0) throw new Error('the partial file is shorter than recorded');
      position += bytesRead;
      if (!response.write(buffer.subarray(0, bytesRead))) await untilWritable(response);
    }
    response.end();
  } finally {
    await handle.close();
  }
};

export class PartialSourceServer {
  private listening: Promise<Listening> | null = null;

  /**
   * Makes `file` readable at the returned URL until `release` is called. `completedPath` is where
   * the file is renamed to once complete (readers that arrive after that open it there).
   */
  async serve(key: string, file: GrowingFile, completedPath: string): Promise<{ url: string; release: () => void }> {
    const server = await (this.listening ??= startServer());
    const entry = { file, completedPath };
    server.entries.set(key, entry);
    return {
      url: `${server.baseUrl}${encodeURIComponent(key)}`,
      release: () => {
        if (server.entries.get(key) === entry) server.entries.delete(key);
      },
    };
  }
}
