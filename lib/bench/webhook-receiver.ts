import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sleep } from './stats';

// A webhook endpoint the benchmark registers with the server (keyframe webhooks create --url …), so
// "client-observed time to ready" is what an integrator sees: the moment the
// `video.asset.ready` POST arrives, measured from the moment the create request was sent. It
// answers 200 at once and remembers when each event arrived (performance.now(), the same clock as
// the create request's start).

export type WebhookArrival = { type: string; objectId: string | null; eventId: string | null; arrivedAt: number; attempts: number | null };

export type WebhookReceiver = {
  url: string;
  arrivals: WebhookArrival[];
  /** Resolves with the first arrival of `type` for `objectId`, or null after `timeoutMs`. */
  waitFor: (type: string, objectId: string, timeoutMs: number) => Promise<WebhookArrival | null>;
  close: () => Promise<void>;
};

type Envelope = { type?: unknown; id?: unknown; object?: { id?: unknown }; data?: { id?: unknown }; attempts?: unknown };

export const startWebhookReceiver = async (): Promise<WebhookReceiver> => {
  const arrivals: WebhookArrival[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('end', () => {
      const arrivedAt = performance.now();
      try {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Envelope;
        const objectId = typeof event.object?.id === 'string' ? event.object.id : typeof event.data?.id === 'string' ? event.data.id : null;
        arrivals.push({
          type: typeof event.type === 'string' ? event.type : 'unknown',
          objectId,
          eventId: typeof event.id === 'string' ? event.id : null,
          arrivedAt,
          attempts: Array.isArray(event.attempts) ? event.attempts.length : null,
        });
      } catch {
        arrivals.push({ type: 'unparseable', objectId: null, eventId: null, arrivedAt, attempts: null });
      }
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const find = (type: string, objectId: string) => arrivals.find((arrival) => arrival.type === type && arrival.objectId === objectId) ?? null;
  return {
    url: `http://127.0.0.1:${port}/keyframe-bench/webhooks`,
    arrivals,
    waitFor: async (type, objectId, timeoutMs) => {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const found = find(type, objectId);
        if (found || performance.now() > deadline) return found;
        await sleep(2);
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
