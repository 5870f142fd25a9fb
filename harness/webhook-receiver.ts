import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import Mux from '@mux/mux-node';

// A webhook receiver on 127.0.0.1, as an integrator would write one: it keeps every request's raw
// body and headers and verifies each with the real `mux.webhooks.unwrap` from @mux/mux-node, then
// answers as the test tells it to (2xx, an error status, or never).
//
// The benchmark registers one too (without verifying: one receiver serves several servers, each
// with its own signing secret), so "client-observed time to ready" is what an integrator sees: the
// moment the `video.asset.ready` POST arrives, measured from the moment the create request was
// sent. `arrivedAt` is when the body was complete, on performance.now(), the same clock as the
// create request's start.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

export type ReceiverReply = number | 'hang';

export type ReceivedWebhook = {
  /** Position among all requests this receiver got (0-based). */
  index: number;
  receivedAt: number;
  /** performance.now() when the body was complete (before verification). */
  arrivedAt: number;
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  /** The envelope as `unwrap` returned it, or undefined if verification failed. */
  event: Json;
  verifyError?: string;
  reply: ReceiverReply;
};

const mux = new Mux({ tokenId: 'unused', tokenSecret: 'unused' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const parseJson = (text: string): Json => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  /** The endpoint's signing secret; set it once `webhooks create` has printed it. */
  secret = '';
  /** How to answer a request; the default accepts everything. */
  reply: (request: { event: Json; rawBody: string; index: number }) => ReceiverReply = () => 200;
  private server: http.Server | undefined;
  private readonly sockets = new Set<Socket>();
  private boundPort = 0;

  private constructor(private readonly verifySignatures: boolean) {}

  /** Listens on `port` (0 = any free one); `verifySignatures: false` accepts any body (the benchmark). */
  static async start(port = 0, { verifySignatures = true }: { verifySignatures?: boolean } = {}): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(verifySignatures);
    await receiver.listen(port);
    return receiver;
  }

  /** Adds this receiver as a webhook endpoint of `server` (with its CLI) and keeps the signing secret. */
  async subscribeTo(server: { cli: (args: string[]) => Promise<unknown> }): Promise<this> {
    const endpoint = (await server.cli(['webhooks', 'create', '--url', this.url])) as { secret: string };
    this.secret = endpoint.secret;
    return this;
  }

  get port(): number {
    return this.boundPort;
  }

  get url(): string {
    return `http://127.0.0.1:${this.boundPort}/hooks/mux`;
  }

  async listen(port = this.boundPort): Promise<void> {
    const server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => void this.handle(request, response, Buffer.concat(chunks).toString('utf8'), performance.now()));
    });
    server.keepAliveTimeout = 30_000;
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.boundPort = (server.address() as AddressInfo).port;
  }

  /** Stops listening and drops every connection, including requests left hanging. */
  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }

  /** Requests whose envelope is about `objectId` (an asset or upload id). */
  about(objectId: string): ReceivedWebhook[] {
    return this.received.filter((entry) => entry.event?.object?.id === objectId);
  }

  /** Requests answered with a 2xx, i.e. deliveries Keyframe considers done. */
  accepted(objectId?: string): ReceivedWebhook[] {
    return (objectId ? this.about(objectId) : this.received).filter(
      (entry) => typeof entry.reply === 'number' && entry.reply >= 200 && entry.reply < 300,
    );
  }

  /** Waits for a request whose envelope has this type and object id (accepted ones by default). */
  async waitForEvent(
    type: string,
    objectId: string,
    { timeoutMs = 30_000, acceptedOnly = true }: { timeoutMs?: number; acceptedOnly?: boolean } = {},
  ): Promise<ReceivedWebhook> {
    return this.waitFor(
      () => (acceptedOnly ? this.accepted(objectId) : this.about(objectId)).find((entry) => entry.event.type === type),
      `${type} for ${objectId}`,
      timeoutMs,
    );
  }

  async waitFor<T>(find: () => T | undefined, what: string, timeoutMs = 30_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = find();
      if (found !== undefined) return found;
      if (Date.now() > deadline) {
        const seen = this.received.map((entry) => `${entry.event?.type ?? '?'} ${entry.event?.object?.id ?? '?'} → ${entry.reply}`);
        throw new Error(`webhook receiver: no ${what} within ${timeoutMs} ms; got ${seen.length}: ${seen.join('; ')}`);
      }
      await sleep(100);
    }
  }

  /**
   * The first request of `type` about `objectId` (the envelope's object or data id), checked every
   * 2 ms so its arrival time is not rounded up; null after `timeoutMs`.
   */
  async arrival(type: string, objectId: string, timeoutMs: number): Promise<{ arrivedAt: number; attempts: number | null } | null> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const found = this.received.find((entry) => entry.event?.type === type && (entry.event?.object?.id ?? entry.event?.data?.id) === objectId);
      if (found) return { arrivedAt: found.arrivedAt, attempts: Array.isArray(found.event?.attempts) ? found.event.attempts.length : null };
      if (performance.now() > deadline) return null;
      await sleep(2);
    }
  }

  /**
   * Waits until `count` requests carry one of `types` (or `timeoutMs` has passed), then `settleMs`
   * more, in which a duplicate delivery would arrive.
   */
  async settle(types: string[], count: number, { timeoutMs = 20_000, settleMs = 2_000 } = {}): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.filter((entry) => types.includes(entry.event?.type)).length < count && Date.now() < deadline) await sleep(100);
    await sleep(settleMs);
  }

  private async handle(request: http.IncomingMessage, response: http.ServerResponse, rawBody: string, arrivedAt: number): Promise<void> {
    const index = this.received.length;
    let event: Json = parseJson(rawBody);
    let verifyError: string | undefined;
    if (this.verifySignatures) {
      try {
        event = await mux.webhooks.unwrap(rawBody, request.headers as Record<string, string>, this.secret);
      } catch (error) {
        verifyError = error instanceof Error ? error.message : String(error);
      }
    }
    const reply = verifyError ? 400 : this.reply({ event, rawBody, index });
    this.received.push({
      index,
      receivedAt: Date.now(),
      arrivedAt,
      method: request.method ?? '',
      path: request.url ?? '',
      headers: request.headers,
      rawBody,
      event,
      verifyError,
      reply,
    });
    if (reply === 'hang') return;
    response.writeHead(reply, { 'content-type': 'text/plain', 'x-receiver': 'keyframe-e2e' }).end(reply < 300 ? 'ok' : `refused with ${reply}`);
  }
}
