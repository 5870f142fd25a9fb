import path from 'node:path';
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LRUCache } from 'lru-cache';
import parseRange from 'range-parser';
import { httpStatusOf, type ApiError } from '../api-error';
import { errorBody } from '../respond';
import { sendFileRange } from './send-file-range';
import { OpenFileCache } from './open-file-cache';
import { PLAYBACK_CORS_HEADERS } from './playback-headers';

// The one response writer of the playback host, used for files already stored and for files just
// encoded alike: streamed from disk (never read whole into memory), with validators (ETag,
// Last-Modified), conditional requests (304), byte ranges (206/416), HEAD, CORS and the caller's
// Cache-Control, so a browser or a CDN in front can cache and revalidate every playback answer.

export type PlaybackReply = {
  contentType: string;
  cacheControl: string;
} & ({ filePath: string } | { text: string; lastModified: Date } | { redirectUrl: string });

const openFiles = new OpenFileCache({ maxEntries: 2_000, validMs: 10_000 });

type Representation = { size: number; etag: string; lastModified: Date };

// Strong validators that every node gives alike: a file is only ever published whole (temp file +
// rename), and every encode of it yields the same bytes (encodes are deterministic, checked by
// e2e/playback/deterministic-encodes.spec.ts), so its name below DATA_DIR and its size identify its
// bytes, on any node and after any re-encode. Its modification time would not: each node's copy
// has its own.
const fileEtag = (filePath: string, size: number) => {
  const normalized = filePath.split(path.sep).join('/');
  const at = normalized.lastIndexOf('/assets/');
  const name = at === -1 ? normalized : normalized.slice(at + 1);
  return `"${size.toString(16)}-${createHash('sha1').update(name).digest('base64url').slice(0, 16)}"`;
};
const textEtag = (body: Buffer) => `"${createHash('sha1').update(body).digest('base64url')}"`;

const etagMatches = (header: string, etag: string): boolean => {
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((candidate) => opaque(candidate) === etag);
};

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

// If-None-Match wins over If-Modified-Since (RFC 9110 §13.1.3). Generated text is judged by its
// ETag alone: a playlist can change (a background rung completes) without its date moving.
const isNotModified = (request: IncomingMessage, representation: Representation, datesValidate: boolean): boolean => {
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined) return etagMatches(ifNoneMatch, representation.etag);
  const ifModifiedSince = request.headers['if-modified-since'];
  if (!datesValidate || ifModifiedSince === undefined) return false;
  const since = Date.parse(ifModifiedSince);
  return Number.isFinite(since) && seconds(representation.lastModified) <= Math.floor(since / 1000);
};

// A Range whose If-Range no longer matches is ignored: the client gets the whole, current body.
const rangeStillValid = (request: IncomingMessage, representation: Representation): boolean => {
  const header = request.headers['if-range'];
  if (typeof header !== 'string') return true;
  const ifRange = header.trim();
  // A weak tag never validates a range (RFC 9110 §13.1.5).
  if (ifRange.startsWith('"') || ifRange.startsWith('W/')) return ifRange === representation.etag;
  const date = Date.parse(ifRange);
  return Number.isFinite(date) && Math.floor(date / 1000) === seconds(representation.lastModified);
};

type Span = { status: 200 | 206 | 416; start: number; end: number };

const selectSpan = (request: IncomingMessage, representation: Representation): Span => {
  const whole: Span = { status: 200, start: 0, end: representation.size - 1 };
  const header = request.headers.range;
  if (header === undefined || !rangeStillValid(request, representation)) return whole;
  const ranges = parseRange(representation.size, header, { combine: true });
  if (ranges === -1) return { status: 416, start: 0, end: -1 };
  // Malformed, not bytes, or several ranges (answering with the whole body is allowed and simpler
  // than multipart/byteranges, which no player asks for).
  if (ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1) return whole;
  const [range] = ranges;
  return range ? { status: 206, start: range.start, end: range.end } : whole;
};

const CORS_HEADER_LIST: string[] = Object.entries(PLAYBACK_CORS_HEADERS).flat();

// HTTP dates are formatted once per distinct time: a hot file or playlist has one.
const httpDates = new LRUCache<number, string>({ max: 10_000 });
const httpDate = (date: Date): string => {
  const time = date.getTime();
  let formatted = httpDates.get(time);
  if (formatted === undefined) {
    formatted = date.toUTCString();
    httpDates.set(time, formatted);
  }
  return formatted;
};

// A flat [name, value, …] list: the cheapest form for writeHead on a path answered thousands of
// times a second.
const baseHeaders = (reply: PlaybackReply, representation: Representation): string[] => [
  ...CORS_HEADER_LIST,
  'content-type',
  reply.contentType,
  'cache-control',
  reply.cacheControl,
  'etag',
  representation.etag,
  'last-modified',
  httpDate(representation.lastModified),
  'accept-ranges',
  'bytes',
];

// Writes status and headers; returns the byte span to send, or null when no body follows.
const writeHead = (request: IncomingMessage, response: ServerResponse, reply: PlaybackReply, representation: Representation, datesValidate: boolean) => {
  const headers = baseHeaders(reply, representation);
  if (isNotModified(request, representation, datesValidate)) {
    response.writeHead(304, headers).end();
    return null;
  }
  const span = selectSpan(request, representation);
  if (span.status === 416) {
    response.writeHead(416, [...headers, 'content-range', `bytes */${representation.size}`, 'content-length', '0']).end();
    return null;
  }
  const length = Math.max(0, span.end - span.start + 1);
  headers.push('content-length', String(length));
  if (span.status === 206) headers.push('content-range', `bytes ${span.start}-${span.end}/${representation.size}`);
  response.writeHead(span.status, headers);
  if (request.method === 'HEAD' || length === 0) {
    response.end();
    return null;
  }
  return span;
};

// Playlists are rendered once per plan and handed over as the same string each time (see
// get-rendition-playlist.ts), so their bytes and ETag are kept too, keyed by that string.
const encodedTexts = new LRUCache<string, { body: Buffer; etag: string }>({
  max: 20_000,
  maxSize: 64 * 1024 * 1024,
  sizeCalculation: (encoded) => encoded.body.length + 64,
});

const encodeText = (text: string) => {
  let encoded = encodedTexts.get(text);
  if (encoded === undefined) {
    const body = Buffer.from(text, 'utf8');
    encoded = { body, etag: textEtag(body) };
    encodedTexts.set(text, encoded);
  }
  return encoded;
};

/** Thrown (as the `code` of an error) when the file to send no longer exists. */
export const isMissingFile = (error: unknown): boolean => (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';

type TextReply = Extract<PlaybackReply, { text: string }>;

/** Text needs no I/O, so it is written synchronously: a cached playlist is answered in its request's tick. */
export const sendTextReply = (request: IncomingMessage, response: ServerResponse, reply: TextReply): void => {
  const { body, etag } = encodeText(reply.text);
  const span = writeHead(request, response, reply, { size: body.length, etag, lastModified: reply.lastModified }, false);
  if (span) response.end(body.subarray(span.start, span.end + 1));
};

// A segment in the bucket, for a player to fetch from its public URL (S3_PUBLIC_URL).
const sendRedirect = (response: ServerResponse, reply: { redirectUrl: string; cacheControl: string }): void => {
  response.writeHead(302, [...CORS_HEADER_LIST, 'location', reply.redirectUrl, 'cache-control', reply.cacheControl, 'content-length', '0']).end();
};

export const sendPlaybackReply = async (request: IncomingMessage, response: ServerResponse, reply: PlaybackReply): Promise<void> => {
  if ('text' in reply) return sendTextReply(request, response, reply);
  if ('redirectUrl' in reply) return sendRedirect(response, reply);
  // Opened before anything is written, so a file missing now is still the caller's to handle.
  const { file, release } = await openFiles.acquire(reply.filePath);
  try {
    const { stats } = file;
    const representation = { size: stats.size, etag: fileEtag(reply.filePath, stats.size), lastModified: stats.mtime };
    const span = writeHead(request, response, reply, representation, true);
    if (span) await sendFileRange(file.fd, span.start, span.end, response);
  } catch (error) {
    // Headers are out: the client can only be told by a cut connection.
    if (!response.headersSent) throw error;
    response.destroy();
  } finally {
    release();
  }
};

// Mux's error shape; never cached anywhere, since the same URL may work a moment later.
export const sendPlaybackError = (response: ServerResponse, error: ApiError): void => {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const body = JSON.stringify(errorBody(error));
  response.writeHead(httpStatusOf(error), {
    ...PLAYBACK_CORS_HEADERS,
    ...error.headers,
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': String(Buffer.byteLength(body)),
  });
  response.end(body);
};
