import path from 'node:path';
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LRUCache } from 'lru-cache';
import { httpStatusOf, loggedUnexpectedApiError, type ApiError } from '../api-error';
import { errorBody } from '../respond';
import { FILE_HEADER, FILE_RANGE_HEADER, FILE_SIZE_HEADER } from '../edge/edge-protocol';
import { headersWithLength, planResponse, type Representation } from '../serving/response-plan';
import { sendFileRange } from '../serving/send-file-range';
import { OpenFileCache } from '../serving/open-file-cache';
import { PLAYBACK_CORS_HEADERS } from './playback-headers';

// The one response writer of the playback host, used for files already stored and for files just
// encoded alike: streamed from disk (never read whole into memory), with validators (ETag,
// Last-Modified), conditional requests (304), byte ranges (206/416), HEAD, CORS and the caller's
// Cache-Control, so a browser or a CDN in front can cache and revalidate every playback answer.

export type PlaybackReply = {
  contentType: string;
  cacheControl: string;
} & ({ filePath: string; lastModified: Date; contentDisposition?: string } | { text: string; lastModified: Date } | { redirectUrl: string });

const openFiles = new OpenFileCache({ maxEntries: 2_000, validMs: 10_000 });

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
  ...('contentDisposition' in reply && reply.contentDisposition !== undefined ? ['content-disposition', reply.contentDisposition] : []),
];

type HeadOptions = {
  datesValidate: boolean;
  extraHeaders?: readonly string[];
  // A playback worker sends the body from this file itself (see lib/http/edge/edge-protocol.ts).
  fileForWorker?: string;
};

// Writes status and headers; returns the byte span to send, or null when no body follows.
const writeHead = (request: IncomingMessage, response: ServerResponse, reply: PlaybackReply, representation: Representation, options: HeadOptions) => {
  const headers = baseHeaders(reply, representation);
  if (options.extraHeaders) headers.push(...options.extraHeaders);
  const plan = planResponse(request, headers, representation, options.datesValidate);
  if (plan.span && options.fileForWorker !== undefined) {
    const fileHeaders = [FILE_HEADER, encodeURIComponent(options.fileForWorker), FILE_RANGE_HEADER, `${plan.span.start}-${plan.span.end}`, FILE_SIZE_HEADER, String(representation.size)];
    response.writeHead(plan.status, [...plan.headers, 'content-length', '0', ...fileHeaders]);
    response.end();
    return null;
  }
  response.writeHead(plan.status, headersWithLength(plan));
  if (!plan.span) response.end();
  return plan.span;
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
export const sendTextReply = (request: IncomingMessage, response: ServerResponse, reply: TextReply, extraHeaders?: readonly string[]): void => {
  const { body, etag } = encodeText(reply.text);
  const span = writeHead(request, response, reply, { size: body.length, etag, lastModified: reply.lastModified }, { datesValidate: false, extraHeaders });
  if (span) response.end(body.subarray(span.start, span.end + 1));
};

// A segment in the bucket, for a player to fetch from its public URL (S3_PUBLIC_URL).
const sendRedirect = (response: ServerResponse, reply: { redirectUrl: string; cacheControl: string }): void => {
  response.writeHead(302, [...CORS_HEADER_LIST, 'location', reply.redirectUrl, 'cache-control', reply.cacheControl, 'content-length', '0']).end();
};

/**
 * Sends any playback answer. With `workerSendsFiles`, a stored file's body is left to the playback
 * worker that forwarded the request: the answer carries its path and byte span instead.
 */
export const sendPlaybackReply = async (
  request: IncomingMessage,
  response: ServerResponse,
  reply: PlaybackReply,
  { workerSendsFiles = false, extraHeaders }: { workerSendsFiles?: boolean; extraHeaders?: readonly string[] } = {},
): Promise<void> => {
  if ('text' in reply) return sendTextReply(request, response, reply);
  if ('redirectUrl' in reply) return sendRedirect(response, reply);
  // Opened before anything is written, so a file missing now is still the caller's to handle.
  const { file, release } = await openFiles.acquire(reply.filePath);
  try {
    const { stats } = file;
    const representation = { size: stats.size, etag: fileEtag(reply.filePath, stats.size), lastModified: reply.lastModified };
    const span = writeHead(request, response, reply, representation, {
      datesValidate: true,
      extraHeaders,
      fileForWorker: workerSendsFiles ? reply.filePath : undefined,
    });
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

/** Answers an error no service turned into an ApiError: 503 when a dependency is unavailable, else 500 (logged). */
export const sendUnexpectedPlaybackError = (response: ServerResponse, error: unknown, context: Record<string, unknown>, what: string): void =>
  sendPlaybackError(response, loggedUnexpectedApiError(error, context, what));
