import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { postWebhook, RESPONSE_BODY_LIMIT } from './post-webhook';

// A real receiver on 127.0.0.1 with one route per behaviour.
let server: http.Server;
let base = '';
const received: Array<{ path: string; headers: http.IncomingHttpHeaders; body: string }> = [];

beforeAll(async () => {
  server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (request.url === '/ok') response.writeHead(200, { 'x-receiver': 'yes' }).end('thanks');
      else if (request.url === '/redirect') response.writeHead(302, { location: '/ok' }).end();
      else if (request.url === '/big') response.writeHead(500).end('x'.repeat(RESPONSE_BODY_LIMIT * 10));
      else if (request.url === '/endless') {
        response.writeHead(200);
        const timer = setInterval(() => response.write('.'), 20);
        response.on('close', () => clearInterval(timer));
      }
      // '/silent': never answers
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const post = (path: string, options: { timeoutMs?: number; signal?: AbortSignal } = {}) =>
  postWebhook({
    url: `${base}${path}`,
    body: '{"type":"video.asset.ready","note":"ünïcødé"}',
    headers: { 'content-type': 'application/json', 'mux-signature': 't=1,v1=00' },
    timeoutMs: options.timeoutMs ?? 2_000,
    signal: options.signal ?? new AbortController().signal,
  });

describe('postWebhook', () => {
  test('POSTs the body and headers and reports the response', async () => {
    const result = await post('/ok');
    expect(result).toMatchObject({ kind: 'response', status: 200, body: 'thanks', headers: { 'x-receiver': 'yes' } });
    const request = received.find((entry) => entry.path === '/ok');
    expect(request?.body).toBe('{"type":"video.asset.ready","note":"ünïcødé"}');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['mux-signature']).toBe('t=1,v1=00');
    expect(Number(request?.headers['content-length'])).toBe(Buffer.byteLength(request?.body ?? ''));
  });

  test('does not follow redirects', async () => {
    const before = received.filter((entry) => entry.path === '/ok').length;
    expect(await post('/redirect')).toMatchObject({ kind: 'response', status: 302 });
    expect(received.filter((entry) => entry.path === '/ok').length).toBe(before);
  });

  test('keeps only an excerpt of large or endless bodies', async () => {
    const big = await post('/big');
    expect(big).toMatchObject({ kind: 'response', status: 500 });
    if (big.kind === 'response') expect(big.body.length).toBe(RESPONSE_BODY_LIMIT);
    // A 200 whose body never ends is still a 200: the deadline cuts the body, not the outcome.
    const endless = await post('/endless', { timeoutMs: 500 });
    expect(endless).toMatchObject({ kind: 'response', status: 200, body: expect.stringMatching(/^\.+$/) });
  });

  test('times out a receiver that never answers', async () => {
    const startedAt = Date.now();
    const result = await post('/silent', { timeoutMs: 300 });
    expect(result).toMatchObject({ kind: 'error', error: expect.stringMatching(/no response within 0.3 s/) });
    expect(Date.now() - startedAt).toBeLessThan(2_000);
  });

  test('reports a refused connection', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const result = await postWebhook({ url: `http://127.0.0.1:${port}/`, body: '{}', headers: {}, timeoutMs: 2_000, signal: new AbortController().signal });
    expect(result).toMatchObject({ kind: 'error', error: expect.stringMatching(/ECONNREFUSED/) });
  });

  test('an abort (shutdown) is reported as such, not as a failure', async () => {
    const controller = new AbortController();
    const pending = post('/silent', { timeoutMs: 10_000, signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    expect(await pending).toEqual({ kind: 'aborted' });
    expect(await post('/ok', { signal: AbortSignal.abort() })).toEqual({ kind: 'aborted' });
  });
});
