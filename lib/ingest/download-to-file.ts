import type { LookupAddress } from 'node:dns';
import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { dirname } from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
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
}

export interface DownloadResult {
  bytes: number;
  contentType: string | null;
  finalUrl: string;
}

// Marks an error raised by our own lookup hook so it survives being passed through
// net/http unchanged and can be reported as a policy refusal rather than a network fault.
class ForbiddenAddressError extends Error {
  constructor(readonly address: string) {
    super(`connection to ${address} is not allowed`);
    this.name = 'ForbiddenAddressError';
  }
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

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function errorCode(err: unknown): string | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err) {
    const code = (err as { code: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/**
 * The check runs inside the socket's own lookup step, so the address vetted is exactly
 * the address connected to; a second DNS answer (rebinding) can't sneak in between.
 */
function guardedLookup(resolve: HostLookup, policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (entries) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
        const addresses: LookupAddress[] = entries
          .map((entry) => ({ address: entry.address, family: entry.family ?? isIP(entry.address) }))
          .filter((entry) => entry.family !== 0 && (wanted === 0 || entry.family === wanted));
        if (addresses.length === 0) {
          const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
          err.code = 'ENOTFOUND';
          callback(err, '', 0);
          return;
        }
        // Refuse outright when any answer is disallowed: a name mixing public and
        // internal addresses is suspect, and it matches the create-time DNS check.
        const refused = addresses.find((entry) => !policy(entry.address));
        if (refused) {
          callback(new ForbiddenAddressError(refused.address), '', 0);
          return;
        }
        if (options.all) {
          callback(null, addresses);
        } else {
          const first = addresses[0]!;
          callback(null, first.address, first.family);
        }
      },
      (err: unknown) => {
        callback(err instanceof Error ? err : new Error(String(err)), '', 0);
      },
    );
  };
}

function sendRequest(
  url: URL,
  options: { lookup: LookupFunction; policy: AddressPolicy; signal: AbortSignal; userAgent: string },
): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    // Node skips the lookup hook for IP literals, so they must be vetted here.
    const host = stripBrackets(url.hostname);
    if (isIP(host) !== 0 && !options.policy(host)) {
      reject(new ForbiddenAddressError(host));
      return;
    }
    const transport = url.protocol === 'https:' ? https : http;
    const req = transport.request(
      url,
      {
        method: 'GET',
        // A fresh socket per hop guarantees every connection goes through the lookup hook.
        agent: false,
        lookup: options.lookup,
        signal: options.signal,
        headers: {
          'User-Agent': options.userAgent,
          Accept: '*/*',
          // Compressed transfer would make byte limits meaningless and the stored file wrong.
          'Accept-Encoding': 'identity',
        },
      },
      resolve,
    );
    req.on('error', reject);
    req.end();
  });
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
): Promise<number> {
  try {
    await mkdir(dirname(partPath), { recursive: true });
  } catch (err) {
    response.destroy();
    throw diskError(err);
  }
  const limiter = new ByteLimiter(maxBytes);
  // 1 MiB of buffering lets the stream batch network chunks into fewer, larger writes (writev):
  // about half the CPU per byte of the 16 KiB default.
  const out = createWriteStream(partPath, { flags: 'w', highWaterMark: 1 << 20 });
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
    await pipeline(response, limiter, out, { signal });
  } catch (err) {
    // pipeline() rejects before the file stream has finished its asynchronous open/close;
    // waiting for it keeps a late open() from recreating the .part file after cleanup.
    if (!out.closed) {
      const closed = new Promise<void>((resolve) => out.once('close', () => resolve()));
      out.destroy();
      await closed;
    }
    if (!signal.aborted && firstFailure?.source === 'disk' && firstFailure.error === err) throw diskError(err);
    throw err;
  }
  try {
    // fsync applies to the inode, so a fresh descriptor flushes what the stream wrote.
    // Without it a crash right after the rename could leave a complete-looking but empty file.
    const handle = await open(partPath, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (err) {
    throw diskError(err);
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
      const bytes = await writeBody(response, partPath, maxBytes, controller.signal);
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
