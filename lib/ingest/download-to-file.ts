import { mkdir, open, rename, rm } from 'node:fs/promises';
import http from 'node:http';
import { dirname } from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { errorCode, ForbiddenAddressError, guardedLookup, sendRequest } from './guarded-request';
import { PositionalFileSink } from './positional-file-sink';
import { checkInputUrlSyntax, defaultHostLookup, type AddressPolicy, type HostLookup } from './url-policy';

const MESSAGE_PREFIX = 'Failed to download input: ';
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const NAME_RESOLUTION_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_NODATA', 'ENODATA']);

export type DownloadErrorCode =
  | 'invalid_url'
  | 'forbidden_address'
  | 'too_many_redirects'
  | 'http_status'
  | 'unsupported_encoding'
  | 'too_large'
  | 'empty'
  | 'truncated'
  | 'timeout'
  | 'cancelled'
  | 'connect_failed'
  | 'network'
  | 'disk';

/** A download failure whose `message` is safe and meaningful to show to the API user. */
export class DownloadError extends Error {
  readonly code: DownloadErrorCode;
  readonly httpStatus: number | undefined;

  constructor(code: DownloadErrorCode, detail: string, options: { cause?: unknown; httpStatus?: number } = {}) {
    super(MESSAGE_PREFIX + detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DownloadError';
    this.code = code;
    this.httpStatus = options.httpStatus;
  }
}

export function isDownloadError(value: unknown): value is DownloadError {
  return value instanceof DownloadError;
}

export interface DownloadOptions {
  url: string;
  destinationPath: string;
  maxBytes: number;
  /** One deadline for the whole download: DNS, connect, every redirect and the body. */
  timeoutMs: number;
  maxRedirects?: number;
  /** Consulted for every address a socket is about to connect to, on every hop. */
  addressPolicy: AddressPolicy;
  signal?: AbortSignal;
  userAgent?: string;
  /** Name resolution used for connections; injectable so tests can simulate DNS. */
  lookup?: HostLookup;
  /** Called once the final response is accepted, before its body is read. */
  onBodyStart?: (body: { finalUrl: string; declaredBytes: number | null; validator: string | null }) => void;
  /** Called whenever more bytes are in the partial file, with how many there are from its start. */
  onBytesWritten?: (bytes: number) => void;
  /** May return a promise to wait for before writing more (the transfer is held meanwhile). */
  holdBeforeWrite?: (bytesWritten: number) => Promise<void> | null;
}

export interface DownloadResult {
  bytes: number;
  contentType: string | null;
  finalUrl: string;
}

export function formatByteLimit(bytes: number): string {
  const units: Array<[string, number]> = [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ];
  for (const [unit, size] of units) {
    if (bytes >= size) {
      const value = bytes / size;
      return `${Number.isInteger(value) ? value : value.toFixed(1).replace(/\.0$/, '')} ${unit}`;
    }
  }
  return `${bytes} bytes`;
}

export function formatDuration(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  if (ms < 1000) return `${ms} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

class ByteLimiter extends Transform {
  bytes = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) {
      callback(new DownloadError('too_large', `the file is larger than the ${formatByteLimit(this.maxBytes)} limit`));
      return;
    }
    callback(null, chunk);
  }
}

function diskError(err: unknown): DownloadError {
  const code = errorCode(err);
  return new DownloadError('disk', `could not write the file to disk${code ? ` (${code})` : ''}`, { cause: err });
}

async function writeBody(
  response: http.IncomingMessage,
  partPath: string,
  maxBytes: number,
  signal: AbortSignal,
  onBytesWritten: (bytes: number) => void,
  holdBeforeWrite: ((bytesWritten: number) => Promise<void> | null) | undefined,
): Promise<number> {
  try {
    await mkdir(dirname(partPath), { recursive: true });
  } catch (err) {
    response.destroy();
    throw diskError(err);
  }
  const limiter = new ByteLimiter(maxBytes);
  let out: PositionalFileSink;
  try {
    out = await PositionalFileSink.create(partPath, onBytesWritten, holdBeforeWrite);
  } catch (err) {
    response.destroy();
    throw diskError(err);
  }
  // pipeline() forwards the first error to every stream, so only an error the file stream
  // raised before anything else failed is a genuine disk problem.
  let firstFailure: { source: 'network' | 'limit' | 'disk'; error: unknown } | undefined;
  const record = (source: 'network' | 'limit' | 'disk') => (error: unknown) => {
    firstFailure ??= { source, error };
  };
  response.once('error', record('network'));
  limiter.once('error', record('limit'));
  out.once('error', record('disk'));
  try {
    // The sink fsyncs before it finishes: without that a crash right after the rename could leave
    // a complete-looking but empty file.
    await pipeline(response, limiter, out, { signal });
  } catch (err) {
    // pipeline() can reject before the file is closed; waiting keeps a late write from
    // recreating the .part file after cleanup.
    await out.closeNow();
    if (!signal.aborted && firstFailure?.source === 'disk' && firstFailure.error === err) throw diskError(err);
    throw err;
  }
  return limiter.bytes;
}

async function fsyncDirectory(path: string): Promise<void> {
  // Persists the rename itself; best effort because some filesystems refuse directory fsync.
  try {
    const dir = await open(path, 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  } catch {
    // ignored on purpose
  }
}

/** Where the bytes go while they arrive; readers may look at it (e.g. to probe the file early). */
export const partialDownloadPath = (destinationPath: string): string => `${destinationPath}.part`;

/**
 * Streams `url` to `destinationPath` (via `destinationPath.part`, renamed atomically on
 * success). Every failure removes the partial file and throws a DownloadError.
 */
export async function downloadToFile(options: DownloadOptions): Promise<DownloadResult> {
  const { url, destinationPath, maxBytes, timeoutMs, addressPolicy, signal } = options;
  const maxRedirects = options.maxRedirects ?? 5;
  const userAgent = options.userAgent ?? 'Keyframe/1.0 (+input downloader)';
  if (!(maxBytes > 0)) throw new RangeError('maxBytes must be a positive number');
  if (!(timeoutMs > 0)) throw new RangeError('timeoutMs must be a positive number');
  if (!Number.isInteger(maxRedirects) || maxRedirects < 0) throw new RangeError('maxRedirects must be a non-negative integer');

  const partPath = partialDownloadPath(destinationPath);
  const controller = new AbortController();
  let stopReason: 'timeout' | 'cancelled' | undefined;
  const stop = (reason: 'timeout' | 'cancelled') => {
    if (stopReason) return;
    stopReason = reason;
    controller.abort();
  };
  const timer = setTimeout(() => stop('timeout'), timeoutMs);
  const onExternalAbort = () => stop('cancelled');
  if (signal?.aborted) stop('cancelled');
  else signal?.addEventListener('abort', onExternalAbort, { once: true });

  const lookup = guardedLookup(options.lookup ?? defaultHostLookup, addressPolicy);
  let current: URL | undefined;
  let redirects = 0;
  let phase: 'connect' | 'body' = 'connect';

  try {
    const initial = checkInputUrlSyntax(url, { allowPrivate: true });
    if (!initial.ok) throw new DownloadError('invalid_url', initial.reason);
    current = initial.url;

    for (;;) {
      if (controller.signal.aborted) throw controller.signal.reason;
      phase = 'connect';
      const response = await sendRequest(current, { lookup, policy: addressPolicy, signal: controller.signal, userAgent });
      const status = response.statusCode ?? 0;
      const location = response.headers.location;

      if (REDIRECT_STATUSES.has(status) && location) {
        // The redirect body is irrelevant; dropping the socket avoids reading it.
        response.destroy();
        if (redirects >= maxRedirects) {
          throw new DownloadError('too_many_redirects', `too many redirects (more than ${maxRedirects})`);
        }
        redirects += 1;
        let next: URL;
        try {
          next = new URL(location, current);
        } catch {
          throw new DownloadError('invalid_url', 'the server sent a redirect to an invalid URL');
        }
        if (next.protocol !== 'http:' && next.protocol !== 'https:') {
          throw new DownloadError('invalid_url', 'the server redirected to a URL that does not use http or https');
        }
        if (next.username !== '' || next.password !== '') {
          throw new DownloadError('invalid_url', 'the server redirected to a URL containing a user name or password');
        }
        current = next;
        continue;
      }

      if (status < 200 || status > 299 || status === 206) {
        response.destroy();
        const text = http.STATUS_CODES[status];
        throw new DownloadError('http_status', `the server answered ${status}${text ? ` ${text}` : ''}`, {
          httpStatus: status,
        });
      }

      const encoding = (response.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
      if (encoding !== '' && encoding !== 'identity') {
        response.destroy();
        throw new DownloadError('unsupported_encoding', `the server sent a compressed response (${encoding}), which is not supported`);
      }

      const lengthHeader = response.headers['content-length'];
      const declaredLength = lengthHeader !== undefined && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : null;
      if (declaredLength !== null && declaredLength > maxBytes) {
        response.destroy();
        throw new DownloadError('too_large', `the file is larger than the ${formatByteLimit(maxBytes)} limit`);
      }
      if (declaredLength === 0) {
        response.destroy();
        throw new DownloadError('empty', 'the server sent an empty file');
      }

      phase = 'body';
      options.onBodyStart?.({ finalUrl: current.href, declaredBytes: declaredLength, validator: rangeValidator(response.headers) });
      const bytes = await writeBody(
        response,
        partPath,
        maxBytes,
        controller.signal,
        options.onBytesWritten ?? (() => undefined),
        options.holdBeforeWrite,
      );
      if (bytes === 0) throw new DownloadError('empty', 'the server sent an empty file');
      if (declaredLength !== null && bytes !== declaredLength) {
        throw new DownloadError('truncated', 'the connection was closed before the download finished');
      }
      if (controller.signal.aborted) throw controller.signal.reason;

      try {
        await rename(partPath, destinationPath);
      } catch (err) {
        throw diskError(err);
      }
      await fsyncDirectory(dirname(destinationPath));
      const contentType = response.headers['content-type'];
      return { bytes, contentType: contentType ?? null, finalUrl: current.href };
    }
  } catch (err) {
    await rm(partPath, { force: true }).catch(() => undefined);
    throw toDownloadError(err, { stopReason, timeoutMs, redirected: redirects > 0, url: current, phase });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onExternalAbort);
  }
}

// What identifies this version of the file for If-Range: a strong ETag, else Last-Modified.
function rangeValidator(headers: http.IncomingHttpHeaders): string | null {
  const etag = headers.etag;
  if (etag && !etag.startsWith('W/')) return etag;
  return headers['last-modified'] ?? null;
}

function toDownloadError(
  err: unknown,
  context: {
    stopReason: 'timeout' | 'cancelled' | undefined;
    timeoutMs: number;
    redirected: boolean;
    url: URL | undefined;
    phase: 'connect' | 'body';
  },
): DownloadError {
  if (err instanceof DownloadError) return err;
  if (context.stopReason === 'timeout') {
    return new DownloadError('timeout', `the download did not finish within ${formatDuration(context.timeoutMs)}`, { cause: err });
  }
  if (context.stopReason === 'cancelled') {
    return new DownloadError('cancelled', 'the download was cancelled', { cause: err });
  }
  if (err instanceof ForbiddenAddressError) {
    const detail = context.redirected
      ? 'redirected to a private or loopback address, which is not allowed'
      : 'the input URL points to a private or loopback address, which is not allowed';
    return new DownloadError('forbidden_address', detail, { cause: err });
  }
  const code = errorCode(err);
  const host = context.url?.host ?? 'the server';
  if (code?.startsWith('HPE_')) {
    return new DownloadError('network', `the server at ${host} sent an invalid HTTP response`, { cause: err });
  }
  if (context.phase === 'connect') {
    if (code && NAME_RESOLUTION_CODES.has(code)) {
      return new DownloadError('connect_failed', `could not find the server ${context.url?.hostname ?? host} (${code})`, { cause: err });
    }
    return new DownloadError('connect_failed', `could not connect to ${host}${code ? ` (${code})` : ''}`, { cause: err });
  }
  return new DownloadError(
    'network',
    `the connection to ${host} was interrupted before the download finished${code ? ` (${code})` : ''}`,
    { cause: err },
  );
}
