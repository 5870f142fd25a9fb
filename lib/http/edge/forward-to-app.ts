import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { EDGE_HEADER_PREFIX } from './edge-protocol';

// Forwards one request from a playback worker to the app over its Unix socket and hands the
// answer back: the body streams both ways with backpressure (uploads of any size pass through
// without being held), `Expect: 100-continue` is answered only when the app answers it, a client
// that goes away cancels the app's work, and an app that cannot be reached gets a 502 in Mux's
// error shape. What to do with the app's answer is the caller's (`onResponse`).

// Hop-by-hop headers (RFC 9110 §7.6.1) belong to one connection, never forwarded.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** A raw [name, value, …] header list without hop-by-hop and private headers (and without `drop`). */
export const forwardableHeaders = (rawHeaders: readonly string[], drop: ReadonlySet<string> = new Set()): string[] => {
  const kept: string[] = [];
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = rawHeaders[index] as string;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || lower.startsWith(EDGE_HEADER_PREFIX) || drop.has(lower)) continue;
    kept.push(name, rawHeaders[index + 1] as string);
  }
  return kept;
};

const hasBody = (request: IncomingMessage) =>
  request.headers['transfer-encoding'] !== undefined || (request.headers['content-length'] !== undefined && request.headers['content-length'] !== '0');

// A kept-alive socket the app closed just as it was reused fails before any answer; a request
// without a body can safely be sent again (Node's documented `reusedSocket` pattern).
const isStaleSocket = (error: NodeJS.ErrnoException, upstream: http.ClientRequest) =>
  upstream.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE');

export const sendBadGateway = (response: ServerResponse): void => {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const body = JSON.stringify({ error: { type: 'service_unavailable', messages: ['The server is restarting; try again in a moment'] } });
  response.writeHead(502, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body) });
  response.end(body);
};

export type ForwardOptions = {
  socketPath: string;
  agent: http.Agent;
  /** Private headers for the app (already named with the private prefix). */
  extraHeaders: readonly string[];
  onResponse: (upstreamResponse: IncomingMessage) => void;
  /** The app could not be reached (the caller answers 502). */
  onUnreachable: (error: Error) => void;
};

export const forwardToApp = (request: IncomingMessage, response: ServerResponse, options: ForwardOptions, attempt = 1): void => {
  const headers = [...forwardableHeaders(request.rawHeaders), ...options.extraHeaders];
  const upstream = http.request({
    socketPath: options.socketPath,
    agent: options.agent,
    method: request.method,
    path: request.url,
    headers,
    // The headers are passed as given: names in the client's case, repeated ones kept.
    setHost: false,
  });
  let answered = false;
  let clientGone = false;
  const bodyless = !hasBody(request);

  upstream.on('continue', () => response.writeContinue());
  upstream.on('response', (upstreamResponse) => {
    answered = true;
    upstreamResponse.on('end', () => {
      // The app answered without reading the whole body (an upload refused early): the rest is
      // read and dropped, so the client can finish sending and read the answer.
      if (!request.complete) {
        request.unpipe(upstream);
        request.resume();
      }
    });
    // Cut off by the app mid-answer: the client must not take a short body for a whole one.
    upstreamResponse.on('close', () => upstreamResponse.complete || response.destroy());
    options.onResponse(upstreamResponse);
  });
  upstream.on('error', (error: NodeJS.ErrnoException) => {
    // Destroyed below because the client left (a player dropping a blocking playlist reload it no longer needs): nothing to report.
    if (answered || clientGone) return;
    if (bodyless && attempt === 1 && isStaleSocket(error, upstream) && !response.destroyed) {
      forwardToApp(request, response, options, attempt + 1);
      return;
    }
    options.onUnreachable(error);
  });
  // The client went away: the app sees its request end too, and drops work nobody waits for.
  response.on('close', () => {
    if (response.writableFinished) return;
    clientGone = true;
    upstream.destroy();
  });
  if (bodyless) upstream.end();
  else request.pipe(upstream);
};
