import http from 'node:http';
import https from 'node:https';

// One HTTP POST of a webhook body. Only the outcome matters to the caller (2xx or not), plus a
// bounded excerpt of the response for the attempt log. Plain node:http rather than fetch: redirects
// are never followed (a 3xx is a failed attempt, as with Mux), one deadline covers connecting,
// waiting and reading, and the response body is never read past the excerpt.

export const RESPONSE_BODY_LIMIT = 4096;
const RESPONSE_HEADER_LIMIT = 50;
const RESPONSE_HEADER_VALUE_LIMIT = 1024;

export type WebhookPostResult =
  | {
      kind: 'response';
      status: number;
      headers: Record<string, string>;
      body: string;
      latencyMs: number;
    }
  | { kind: 'error'; error: string; latencyMs: number }
  /** `signal` aborted (server shutting down): the attempt does not count. */
  | { kind: 'aborted' };

const excerptHeaders = (headers: http.IncomingHttpHeaders): Record<string, string> => {
  const entries = Object.entries(headers)
    .filter((entry): entry is [string, string | string[]] => entry[1] !== undefined)
    .slice(0, RESPONSE_HEADER_LIMIT)
    .map(([name, value]) => [name, (Array.isArray(value) ? value.join(', ') : value).slice(0, RESPONSE_HEADER_VALUE_LIMIT)]);
  return Object.fromEntries(entries);
};

export const postWebhook = ({
  url,
  body,
  headers,
  timeoutMs,
  signal,
}: {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
}): Promise<WebhookPostResult> => {
  if (signal.aborted) return Promise.resolve({ kind: 'aborted' });
  if (!URL.canParse(url)) return Promise.resolve({ kind: 'error', error: `invalid URL ${url}`, latencyMs: 0 });
  const startedAt = performance.now();
  const latencyMs = () => Math.round(performance.now() - startedAt);

  return new Promise<WebhookPostResult>((resolve) => {
    let settled = false;
    const finish = (result: WebhookPostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      signal.removeEventListener('abort', onAbort);
      request.destroy();
      resolve(result);
    };
    const fail = (error: string) => finish(signal.aborted ? { kind: 'aborted' } : { kind: 'error', error, latencyMs: latencyMs() });

    const target = new URL(url);
    const payload = Buffer.from(body, 'utf8');
    const request = (target.protocol === 'https:' ? https : http).request(target, {
      method: 'POST',
      // A fresh connection per attempt: a pooled socket the receiver has closed in the meantime
      // would turn into a spurious failure, and deliveries are too rare to need pooling.
      agent: false,
      headers: { ...headers, 'content-length': String(payload.length) },
    });
    const onAbort = () => fail('aborted');
    // Once the status line is in, the outcome is known: a body that is still trickling in at the
    // deadline is cut off rather than turning a 2xx into a failure.
    let completeWithPartialBody: (() => void) | undefined;
    const deadline = setTimeout(
      () => (completeWithPartialBody ? completeWithPartialBody() : fail(`no response within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    signal.addEventListener('abort', onAbort, { once: true });

    request.on('error', (error: NodeJS.ErrnoException) => fail(error.code ? `${error.code}: ${error.message}` : error.message));
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let received = 0;
      const complete = () =>
        finish({
          kind: 'response',
          status: response.statusCode ?? 0,
          headers: excerptHeaders(response.headers),
          body: Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_BODY_LIMIT),
          latencyMs: latencyMs(),
        });
      completeWithPartialBody = complete;
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        received += chunk.length;
        // Enough for the log; the rest of a large (or endless) body is not worth waiting for.
        if (received >= RESPONSE_BODY_LIMIT) complete();
      });
      response.on('end', complete);
      response.on('error', (error) => fail(error.message));
      response.on('close', () => fail('the connection closed before the response was complete'));
    });
    request.end(payload);
  });
};
