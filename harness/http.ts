import http from 'node:http';
import type { Socket } from 'node:net';

// Timed HTTP requests with node:http. TTFB is measured to the response headers, TTLB to the last
// byte of the body; both from just before the request is sent.

export type TimedResponse = {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  bytes: number;
  ttfbMs: number;
  ttlbMs: number;
};

export const keepAliveAgent = (maxSockets = 16): http.Agent => new http.Agent({ keepAlive: true, maxSockets });

export const request = ({
  url,
  method = 'GET',
  headers = {},
  body,
  agent,
  keepBody = true,
  timeoutMs = 120_000,
  onSocket,
}: {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  agent?: http.Agent;
  keepBody?: boolean;
  timeoutMs?: number;
  /** Sees the socket each request goes out on (to count keep-alive reuse). */
  onSocket?: (socket: Socket) => void;
}): Promise<TimedResponse> =>
  new Promise((resolve, reject) => {
    const startedAt = performance.now();
    const outgoing = http.request(
      url,
      {
        method,
        agent,
        headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (response) => {
        const ttfbMs = performance.now() - startedAt;
        const chunks: Buffer[] = [];
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (keepBody) chunks.push(chunk);
        });
        response.once('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
            bytes,
            ttfbMs,
            ttlbMs: performance.now() - startedAt,
          }),
        );
        response.once('error', reject);
      },
    );
    outgoing.setTimeout(timeoutMs, () => outgoing.destroy(new Error(`${method} ${url} timed out after ${timeoutMs} ms`)));
    if (onSocket) outgoing.once('socket', onSocket);
    outgoing.once('error', reject);
    outgoing.end(body);
  });

export class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    readonly url: string,
    readonly responseBody: string,
  ) {
    const title = /<title>([^<]*)<\/title>/i.exec(responseBody)?.[1];
    const shown = responseBody.trimStart().startsWith('<') ? `an HTML page${title ? ` ("${title}")` : ''}` : responseBody.slice(0, 300);
    super(`${url} answered ${status}: ${shown}`);
  }
}

/** GET that must answer 200; returns the timed response. */
export const getOk = async (url: string, agent?: http.Agent, keepBody = true): Promise<TimedResponse> => {
  const response = await request({ url, agent, keepBody });
  if (response.status !== 200) throw new HttpStatusError(response.status, url, response.body.toString('utf8'));
  return response;
};

export const basicAuth = (id: string, secret: string): string => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
