import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpRequestTally } from '../../metrics/http-request-tally';
import {
  CACHEABLE_HEADER,
  CLIENT_ADDRESS_HEADER,
  FILE_HEADER,
  FILE_RANGE_HEADER,
  FILE_SIZE_HEADER,
  TAKES_FILES_HEADER,
  type ServedFile,
} from './edge-protocol';
import { createPlaybackWorkerHandler } from './playback-worker-server';
import { WorkerAnswerCache } from './worker-answer-cache';

// A real worker handler on a real port in front of a real HTTP server on a Unix socket standing in
// for the app: what crosses the wire both ways is what is checked.

const PLAYBACK_ID = 'a'.repeat(24);
const ASSET_ID = 'b'.repeat(24);

type AppHandler = (request: IncomingMessage, response: ServerResponse) => void;

let dir: string;
let app: http.Server;
let worker: http.Server;
let workerUrl: string;
let appRequests: IncomingMessage[];
let appHandler: AppHandler;
let cache: WorkerAnswerCache;
let tally: HttpRequestTally;
let closeHandler: () => void;
let served: ServedFile[];

const listen = (server: http.Server, target: string | number) =>
  new Promise<void>((resolve) => (typeof target === 'string' ? server.listen(target, resolve) : server.listen(target, '127.0.0.1', resolve)));

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'kf-worker-'));
  appRequests = [];
  served = [];
  appHandler = (_request, response) => response.end('default');
  app = http.createServer((request, response) => {
    appRequests.push(request);
    appHandler(request, response);
  });
  const socketPath = path.join(dir, 'app.sock');
  await listen(app, socketPath);
  cache = new WorkerAnswerCache({ maxBytes: 1024 * 1024, ttlMs: 60_000 });
  tally = new HttpRequestTally();
  const handler = createPlaybackWorkerHandler({ appSocketPath: socketPath, cache, tally, memoryCacheBytes: 1024 * 1024, trustedProxies: null, onServedFile: (file) => served.push(file), onError: () => undefined });
  closeHandler = handler.close;
  worker = http.createServer(handler.handle);
  worker.on('checkContinue', handler.handle);
  await listen(worker, 0);
  workerUrl = `http://127.0.0.1:${(worker.address() as net.AddressInfo).port}`;
});

afterEach(async () => {
  closeHandler();
  worker.closeAllConnections();
  app.closeAllConnections();
  await new Promise((resolve) => worker.close(resolve));
  await new Promise((resolve) => app.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const playlistApp = (kind: 'multivariant' | 'rendition', body = '#EXTM3U\n#EXT-X-ENDLIST\n') => {
  appHandler = (_request, response) => {
    response.writeHead(200, {
      'content-type': 'application/vnd.apple.mpegurl',
      etag: '"v1"',
      'cache-control': 'public, max-age=10',
      'content-length': Buffer.byteLength(body),
      [CACHEABLE_HEADER]: `${kind} ${PLAYBACK_ID} ${ASSET_ID}`,
    });
    response.end(body);
  };
};

describe('playback worker', () => {
  it('forwards what it cannot answer, with the client address and without private headers from the client', async () => {
    appHandler = (request, response) => {
      response.writeHead(201, [['set-cookie', 'a=1'], ['set-cookie', 'b=2'], ['content-type', 'application/json']].flat());
      response.end(JSON.stringify({ method: request.method, url: request.url }));
    };
    const response = await fetch(`${workerUrl}/video/v1/assets?x=1`, {
      method: 'POST',
      body: '{"input":"x"}',
      headers: { 'content-type': 'application/json', [CLIENT_ADDRESS_HEADER]: '6.6.6.6', [TAKES_FILES_HEADER]: '1' },
    });
    expect(response.status).toBe(201);
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await response.json()).toEqual({ method: 'POST', url: '/video/v1/assets?x=1' });
    const seen = appRequests[0]!;
    expect(seen.headers[CLIENT_ADDRESS_HEADER]).toBe('127.0.0.1');
    expect(seen.headers[TAKES_FILES_HEADER]).toBeUndefined();
    expect(seen.headers.host).toBe(new URL(workerUrl).host);
  });

  it('keeps a playlist the app marked cacheable and answers it alone, with 304 and HEAD', async () => {
    playlistApp('rendition');
    const url = `${workerUrl}/${PLAYBACK_ID}/540p.m3u8`;
    const first = await fetch(url);
    expect(first.status).toBe(200);
    expect(first.headers.get(CACHEABLE_HEADER)).toBeNull();
    const body = await first.text();
    const second = await fetch(url);
    expect(await second.text()).toBe(body);
    expect(second.headers.get('etag')).toBe('"v1"');
    expect(second.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
    expect((await fetch(url, { headers: { 'if-none-match': '"v1"' } })).status).toBe(304);
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
    expect(appRequests).toHaveLength(1);
    expect(tally.countOf('playback_playlist', 200)).toBe(2);
    expect(tally.countOf('playback_playlist', 304)).toBe(1);
  });

  it('asks the app again once told to forget the asset or the playback ID', async () => {
    playlistApp('rendition');
    const url = `${workerUrl}/${PLAYBACK_ID}/540p.m3u8`;
    await (await fetch(url)).text();
    cache.forget({ assetId: ASSET_ID });
    appHandler = (_request, response) => response.writeHead(404).end();
    expect((await fetch(url)).status).toBe(404);
    expect(appRequests).toHaveLength(2);
  });

  it('does not keep an answer that was on its way when a forget arrived', async () => {
    appHandler = (_request, response) => {
      cache.forget({ playbackId: PLAYBACK_ID });
      response.writeHead(200, { [CACHEABLE_HEADER]: `rendition ${PLAYBACK_ID} ${ASSET_ID}` }).end('#EXTM3U\n');
    };
    const url = `${workerUrl}/${PLAYBACK_ID}/540p.m3u8`;
    await (await fetch(url)).text();
    await (await fetch(url)).text();
    expect(appRequests).toHaveLength(2);
  });

  it('answers multivariant playlists alone only while the app allows it', async () => {
    playlistApp('multivariant');
    const url = `${workerUrl}/${PLAYBACK_ID}.m3u8`;
    await (await fetch(url)).text();
    await (await fetch(url)).text();
    expect(appRequests).toHaveLength(2);
    cache.allowMultivariants(true);
    await (await fetch(url)).text();
    expect(appRequests).toHaveLength(2);
  });

  it('sends the bytes of the file the app names, and asks the app to send them when the file is gone', async () => {
    const file = path.join(dir, 'segment.m4s');
    writeFileSync(file, Buffer.from('0123456789'));
    appHandler = (request, response) => {
      if (request.headers[TAKES_FILES_HEADER] !== '1') {
        response.writeHead(200, { 'content-length': 4 }).end('sent');
        return;
      }
      response.writeHead(206, {
        'content-type': 'video/mp4',
        'content-range': 'bytes 2-5/10',
        'content-length': 0,
        [FILE_HEADER]: encodeURIComponent(request.url === '/gone/0/1.m4s' ? path.join(dir, 'missing.m4s') : file),
        [FILE_RANGE_HEADER]: '2-5',
      });
      response.end();
    };
    const ranged = await fetch(`${workerUrl}/${PLAYBACK_ID}/540p/1.m4s`, { headers: { range: 'bytes=2-5' } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-length')).toBe('4');
    expect(ranged.headers.get(FILE_HEADER)).toBeNull();
    expect(await ranged.text()).toBe('2345');
    const gone = await fetch(`${workerUrl}/gone/0/1.m4s`);
    expect(await gone.text()).toBe('sent');
  });

  it('keeps a public stored file, serves its ranges, 304 and HEAD alone, and tells the app what it served', async () => {
    const file = path.join(dir, 'segment.m4s');
    writeFileSync(file, Buffer.from('0123456789'));
    const fileAnswer = (cacheable: boolean) => (_request: IncomingMessage, response: ServerResponse) => {
      response.writeHead(200, {
        'content-type': 'video/mp4',
        etag: '"a-1"',
        'last-modified': new Date(0).toUTCString(),
        'cache-control': 'public, max-age=31536000, immutable',
        'content-length': 0,
        [FILE_HEADER]: encodeURIComponent(file),
        [FILE_RANGE_HEADER]: '0-9',
        [FILE_SIZE_HEADER]: '10',
        ...(cacheable ? { [CACHEABLE_HEADER]: `file ${PLAYBACK_ID} ${ASSET_ID}` } : {}),
      });
      response.end();
    };
    const url = `${workerUrl}/${PLAYBACK_ID}/540p/4.m4s`;
    appHandler = fileAnswer(false);
    await (await fetch(url)).text();
    await (await fetch(url)).text();
    expect(appRequests).toHaveLength(2);
    appHandler = fileAnswer(true);
    expect(await (await fetch(url)).text()).toBe('0123456789');
    const ranged = await fetch(url, { headers: { range: 'bytes=3-4' } });
    expect([ranged.status, ranged.headers.get('content-range'), await ranged.text()]).toEqual([206, 'bytes 3-4/10', '34']);
    expect((await fetch(url, { headers: { 'if-none-match': '"a-1"' } })).status).toBe(304);
    expect((await fetch(url, { headers: { range: 'bytes=20-' } })).status).toBe(416);
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.headers.get('content-length')).toBe('10');
    expect(appRequests).toHaveLength(3);
    expect(served.map((entry) => [entry.playbackId, entry.rendition, entry.file])).toEqual(Array(4).fill([PLAYBACK_ID, '540p', '4.m4s']));
    expect(tally.countOf('playback_segment', 206)).toBe(1);
    // The asset deleted: the app is asked again.
    cache.forget({ assetId: ASSET_ID });
    appHandler = (_request, response) => response.writeHead(404).end();
    expect((await fetch(url, { headers: { range: 'bytes=0-1' } })).status).toBe(404);
  });

  it('streams a request body through and relays 100-continue only when the app sends it', async () => {
    let received = 0;
    appHandler = (request, response) => {
      request.on('data', (chunk: Buffer) => (received += chunk.length));
      request.on('end', () => response.writeHead(200).end(String(received)));
    };
    const body = Buffer.alloc(8 * 1024 * 1024, 7);
    const answer = await new Promise<{ status: number; text: string; continued: boolean }>((resolve, reject) => {
      const request = http.request(`${workerUrl}/upload/x`, { method: 'PUT', headers: { expect: '100-continue', 'content-length': body.length } });
      let continued = false;
      request.on('continue', () => {
        continued = true;
        request.end(body);
      });
      request.on('response', (response) => {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text, continued }));
      });
      request.on('error', reject);
      request.flushHeaders();
    });
    expect(answer).toEqual({ status: 200, text: String(body.length), continued: true });
  });

  it('passes an early refusal of an upload to the client without the body it did not want', async () => {
    appHandler = (_request, response) => response.writeHead(410, { 'content-type': 'application/json' }).end('{"error":{}}');
    const answer = await new Promise<number>((resolve, reject) => {
      const request = http.request(`${workerUrl}/upload/y`, { method: 'PUT', headers: { expect: '100-continue', 'content-length': 1024 } });
      request.on('continue', () => request.end(Buffer.alloc(1024)));
      request.on('response', (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', reject);
      request.flushHeaders();
    });
    expect(answer).toBe(410);
  });

  it('tells the app when the client goes away', async () => {
    const closed = new Promise<void>((resolve) => {
      appHandler = (_request, response) => response.on('close', () => resolve());
    });
    const controller = new AbortController();
    const pending = fetch(`${workerUrl}/${PLAYBACK_ID}/540p/3.m4s`, { signal: controller.signal }).catch(() => 'aborted');
    await new Promise((resolve) => setTimeout(resolve, 100));
    controller.abort();
    expect(await pending).toBe('aborted');
    await closed;
  });

  it('answers 502 in the API error shape when the app is not there', async () => {
    app.closeAllConnections();
    await new Promise((resolve) => app.close(resolve));
    const response = await fetch(`${workerUrl}/video/v1/assets`);
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ error: { type: 'service_unavailable' } });
    app = http.createServer();
    await listen(app, path.join(dir, 'other.sock'));
  });
});
