import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_BEACON_BYTES, parseBeacon } from '../../analytics/beacon-schema';
import { parseUserAgent } from '../../analytics/user-agent';
import { getEnv } from '../../env';
import { getLogger } from '../../log';
import { collector } from '../../services/analytics/collector';
import { ApiError, httpStatusOf, unexpectedApiError } from '../api-error';
import { clientAddressOf } from '../edge/from-playback-worker';
import { takeRateLimitToken } from '../rate-limit';
import { countHttpRequest } from '../metrics/request-metrics';
import { errorBody } from '../respond';

// The beacon collector's HTTP side: mux-embed POSTs `{metadata, events}` as text/plain (fetch,
// XHR) or text/plain;charset=UTF-8 (sendBeacon) to `http(s)://{beacon-collection-domain}`, which
// by default is Keyframe's own origin, path `/`. Answered here, before Next.js: 200 as soon as the
// body is parsed and queued (views are written in batches by the collector), with open CORS.
// The client's address keys its rate limit and is never stored.

const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers': 'content-type',
  'access-control-max-age': '86400',
};

/** Whether a request is a beacon (or its preflight). Next.js server actions (`Next-Action`) post to pages and are not. */
export const isBeaconRequest = (request: IncomingMessage): boolean => {
  const url = request.url ?? '';
  if (url !== '/' && !url.startsWith('/?')) return false;
  if (request.method === 'OPTIONS') return true;
  return request.method === 'POST' && request.headers['next-action'] === undefined;
};

const answer = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = body === null ? '' : JSON.stringify(body);
  response.writeHead(status, {
    ...CORS_HEADERS,
    'cache-control': 'no-store',
    ...(text ? { 'content-type': 'application/json; charset=utf-8' } : {}),
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  response.end(text);
};

const answerError = (request: IncomingMessage, response: ServerResponse, error: ApiError) => {
  // The rest of a body refused unread is read and dropped, not cut off: a playback worker in
  // front still writing it would take a closed connection for an app that is down (502).
  request.removeAllListeners('data');
  request.resume();
  answer(response, httpStatusOf(error), errorBody(error), error.headers);
};

const tooLarge = () => new ApiError('payload_too_large', `A beacon body is at most ${MAX_BEACON_BYTES} bytes`);

const readBody = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    request.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length > MAX_BEACON_BYTES) {
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks, length).toString('utf8')));
    request.on('error', reject);
  });

const takeBeaconToken = async (request: IncomingMessage): Promise<void> => {
  const decision = await takeRateLimitToken('beacons', clientAddressOf(request) ?? 'unknown', getEnv().data.beaconRate);
  if (decision.allowed) return;
  throw new ApiError('too_many_requests', 'Too many beacons, retry later.', {
    'retry-after': String(Math.max(1, Math.ceil(decision.retryAfterMs / 1000))),
  });
};

const receive = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_BEACON_BYTES) throw tooLarge();
  await takeBeaconToken(request);
  const receivedAt = Date.now();
  const parsed = parseBeacon(await readBody(request));
  if (!parsed.ok) throw new ApiError('invalid_parameters', parsed.messages);
  const userAgent = request.headers['user-agent'];
  collector(getLogger).accept(parsed.beacon, { receivedAt, agent: userAgent ? parseUserAgent(userAgent) : null });
  answer(response, 200, null);
};

/** Answers a beacon request (see isBeaconRequest). */
export const serveBeacon = (request: IncomingMessage, response: ServerResponse): void => {
  countHttpRequest(response, 'beacon');
  if (request.method === 'OPTIONS') {
    answer(response, 204, null);
    return;
  }
  receive(request, response).catch((error: unknown) => {
    if (response.headersSent) return;
    if (error instanceof ApiError) {
      answerError(request, response, error);
      return;
    }
    getLogger().error({ err: error }, 'beacon failed');
    answerError(request, response, unexpectedApiError(error));
  });
};
