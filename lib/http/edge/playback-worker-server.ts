import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { INIT_FILE } from '../../media/names';
import type { HttpRequestTally, RouteClass } from '../../metrics/http-request-tally';
import { etagMatches } from '../serving/etag-match';
import { OpenFileCache } from '../serving/open-file-cache';
import { matchPlaybackPath, type PlaybackPath } from '../serving/playback-paths';
import { headersWithLength, planResponse } from '../serving/response-plan';
import { sendFileRange } from '../serving/send-file-range';
import {
  CACHEABLE_HEADER,
  CLIENT_ADDRESS_HEADER,
  FILE_HEADER,
  FILE_RANGE_HEADER,
  FILE_SIZE_HEADER,
  parseCacheable,
  TAKES_FILES_HEADER,
  type EdgeForget,
  type ServedFile,
} from './edge-protocol';
import { requestClientAddress, type TrustedProxies } from './client-address';
import { forwardableHeaders, forwardToApp, sendBadGateway } from './forward-to-app';
import { HotFileBodies } from './hot-file-bodies';
import type { CachedFile, CachedPlaylist, WorkerAnswerCache } from './worker-answer-cache';

// The request handler of a playback worker: one of the processes that hold the public port in
// front of the app (see lib/server/playback-workers.ts). It answers by itself what needs no
// decision: public playlists and stored files of public playback IDs that the app has answered
// before, and the bytes of any stored file once the app has said which file and which bytes.
// Everything else (API, dashboard, uploads, signed playback, just-in-time encodes) is forwarded to
// the app unchanged. These processes never load Next.js, whose async-context hooks cost every
// request in the app process.

// A playlist is a few KB; anything larger that claims to be cacheable is passed through unkept.
const MAX_CACHED_BODY_BYTES = 256 * 1024;

export type WorkerServerOptions = {
  appSocketPath: string;
  cache: WorkerAnswerCache;
  tally: HttpRequestTally;
  /** Bytes of stored files kept in memory (0: every file is read from disk). */
  memoryCacheBytes: number;
  /** Proxies whose X-Forwarded-For names the client (TRUSTED_PROXIES); null: the peer is the client. */
  trustedProxies: TrustedProxies | null;
  /** A stored segment was answered from this worker's cache (the app is told in batches). */
  onServedFile: (served: ServedFile) => void;
  onError: (message: string, error: unknown) => void;
};

// What the app's answer says about one response only, not about the file.
const PER_RESPONSE = new Set(['content-length', 'content-range', 'date']);

const headerValue = (message: IncomingMessage, name: string): string | undefined => {
  const value = message.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

const routeOf = (path: PlaybackPath): RouteClass => {
  if (path.kind === 'rendition-file') return path.file === INIT_FILE ? 'playback_init' : 'playback_segment';
  if (path.kind === 'static-rendition' || path.kind === 'text-track') return 'playback_static';
  return path.kind === 'image' ? 'playback_image' : 'playback_playlist';
};

const sendCachedPlaylist = (request: IncomingMessage, response: ServerResponse, entry: CachedPlaylist): number => {
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined && entry.etag !== undefined && etagMatches(ifNoneMatch, entry.etag)) {
    response.writeHead(304, entry.headers).end();
    return 304;
  }
  response.writeHead(200, [...entry.headers, 'content-length', String(entry.body.length)]);
  if (request.method === 'HEAD') response.end();
  else response.end(entry.body);
  return 200;
};

// A 4 s 1080p segment is ~2 MB; anything much larger (an MP4 download) streams from disk.
const MAX_FILE_IN_MEMORY_BYTES = 8 * 1024 * 1024;

export const createPlaybackWorkerHandler = ({ appSocketPath, cache, tally, memoryCacheBytes, trustedProxies, onServedFile, onError }: WorkerServerOptions) => {
  const clientAddress = (request: IncomingMessage) => requestClientAddress(request, trustedProxies) ?? '';
  const clientKey = (request: IncomingMessage) => `${clientAddress(request)} ${request.headers['user-agent'] ?? ''}`;
  const agent = new http.Agent({ keepAlive: true, maxFreeSockets: 256, scheduling: 'lifo' });
  const openFiles = new OpenFileCache({ maxEntries: 2_000, validMs: 10_000 });
  const bodies = new HotFileBodies({ maxBytes: memoryCacheBytes, maxFileBytes: MAX_FILE_IN_MEMORY_BYTES });

  const openOrNull = async (filePath: string) => {
    try {
      return await openFiles.acquire(filePath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') onError('opening a stored file failed', error);
      return null;
    }
  };

  const sendOpened = async (
    response: ServerResponse,
    filePath: string,
    opened: NonNullable<Awaited<ReturnType<typeof openOrNull>>>,
    start: number,
    end: number,
  ) => {
    try {
      const { size } = opened.file.stats;
      if (bodies.holds(size)) response.end((await bodies.body(filePath, opened.file.fd, size)).subarray(start, end + 1));
      else await sendFileRange(opened.file.fd, start, end, response);
    } catch (error) {
      onError('sending a stored file failed', error);
      response.destroy();
    } finally {
      opened.release();
    }
  };

  // A stored file kept from an earlier answer: planned here (conditional, range, HEAD) as the app would.
  const sendCachedFile = async (request: IncomingMessage, response: ServerResponse, entry: CachedFile, path: PlaybackPath, url: string) => {
    const plan = planResponse(request, entry.headers, entry.representation, true);
    const opened = plan.span ? await openOrNull(entry.filePath) : null;
    if (plan.span && !opened) {
      // Evicted from the rendition cache: the app decides again (and encodes it again if need be).
      cache.drop(url);
      forward(request, response, path);
      return;
    }
    if (path.kind === 'rendition-file') {
      onServedFile({ playbackId: path.playbackId, rendition: path.rendition, file: path.file, client: clientKey(request) });
    }
    const startedAt = performance.now();
    response.writeHead(plan.status, headersWithLength(plan));
    if (plan.span && opened) await sendOpened(response, entry.filePath, opened, plan.span.start, plan.span.end);
    else response.end();
    tally.record(routeOf(path), plan.status, (performance.now() - startedAt) / 1000);
  };

  // The app has decided status and headers; the body is `range` of the file, sent from here.
  const sendFileBody = async (request: IncomingMessage, response: ServerResponse, upstream: IncomingMessage, path: PlaybackPath | null, generation: number) => {
    const filePath = decodeURIComponent(headerValue(upstream, FILE_HEADER) ?? '');
    const [start, end] = (headerValue(upstream, FILE_RANGE_HEADER) ?? '').split('-').map(Number) as [number, number];
    const opened = await openOrNull(filePath);
    if (!opened) {
      forward(request, response, path, { takesFiles: false });
      return;
    }
    const headers = forwardableHeaders(upstream.rawHeaders, PER_RESPONSE);
    const cacheable = parseCacheable(headerValue(upstream, CACHEABLE_HEADER) ?? '');
    const size = Number(headerValue(upstream, FILE_SIZE_HEADER));
    const etag = headerValue(upstream, 'etag');
    const lastModified = Date.parse(headerValue(upstream, 'last-modified') ?? '');
    if (cacheable?.kind === 'file' && etag !== undefined && Number.isSafeInteger(size) && Number.isFinite(lastModified)) {
      const entry: CachedFile = { ...cacheable, kind: 'file', filePath, headers, representation: { size, etag, lastModified: new Date(lastModified) } };
      cache.store(request.url ?? '/', entry, generation);
    }
    const withRange = upstream.statusCode === 206 ? [...headers, 'content-range', headerValue(upstream, 'content-range') ?? ''] : headers;
    response.writeHead(upstream.statusCode ?? 200, [...withRange, 'content-length', String(end - start + 1)]);
    await sendOpened(response, filePath, opened, start, end);
  };

  // Buffers a cacheable playlist (small), keeps it and sends it.
  const keepAndSend = (request: IncomingMessage, response: ServerResponse, upstream: IncomingMessage, generation: number) => {
    const chunks: Buffer[] = [];
    let length = 0;
    upstream.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      length += chunk.length;
    });
    upstream.on('end', () => {
      const body = Buffer.concat(chunks, length);
      const headers = forwardableHeaders(upstream.rawHeaders, PER_RESPONSE);
      const described = parseCacheable(headerValue(upstream, CACHEABLE_HEADER) ?? '');
      if (described && described.kind !== 'file' && body.length <= MAX_CACHED_BODY_BYTES) {
        cache.store(request.url ?? '/', { ...described, kind: described.kind, headers, body, etag: headerValue(upstream, 'etag') }, generation);
      }
      response.writeHead(upstream.statusCode ?? 200, [...headers, 'content-length', String(body.length)]);
      response.end(body);
    });
  };

  function forward(request: IncomingMessage, response: ServerResponse, path: PlaybackPath | null, { takesFiles = path !== null } = {}) {
    const generation = cache.currentGeneration();
    const extraHeaders = [CLIENT_ADDRESS_HEADER, clientAddress(request), ...(takesFiles ? [TAKES_FILES_HEADER, '1'] : [])];
    forwardToApp(request, response, {
      socketPath: appSocketPath,
      agent,
      extraHeaders,
      onUnreachable: (error) => {
        onError('the app did not answer', error);
        sendBadGateway(response);
      },
      onResponse: (upstream) => {
        if (headerValue(upstream, FILE_HEADER) !== undefined) {
          upstream.resume();
          void sendFileBody(request, response, upstream, path, generation);
          return;
        }
        const cacheable = parseCacheable(headerValue(upstream, CACHEABLE_HEADER) ?? '');
        if (cacheable && cacheable.kind !== 'file' && upstream.statusCode === 200 && request.method === 'GET') {
          keepAndSend(request, response, upstream, generation);
          return;
        }
        response.writeHead(upstream.statusCode ?? 502, upstream.statusMessage, forwardableHeaders(upstream.rawHeaders));
        upstream.pipe(response);
      },
    });
  }

  const handle = (request: IncomingMessage, response: ServerResponse): void => {
    const url = request.url ?? '/';
    const isRead = request.method === 'GET' || request.method === 'HEAD';
    const queryStart = url.indexOf('?');
    const path = isRead ? matchPlaybackPath(queryStart === -1 ? url : url.slice(0, queryStart)) : null;
    const entry = path ? cache.get(url) : undefined;
    if (path && entry?.kind === 'file') {
      void sendCachedFile(request, response, entry, path, url);
      return;
    }
    if (path && entry && entry.kind !== 'file' && request.headers.range === undefined) {
      const startedAt = performance.now();
      const status = sendCachedPlaylist(request, response, entry);
      tally.record('playback_playlist', status, (performance.now() - startedAt) / 1000);
      return;
    }
    forward(request, response, path);
  };

  /** Drops what the worker keeps of a playback ID or an asset (the app deleted it). */
  const forget = (what: EdgeForget) => {
    for (const entry of cache.forget(what)) if (entry.kind === 'file') bodies.forget(entry.filePath);
  };

  return { handle, forget, close: () => agent.destroy() };
};
