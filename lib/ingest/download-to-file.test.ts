import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { downloadToFile, DownloadError, isDownloadError, type DownloadOptions } from './download-to-file';
import type { AddressPolicy, HostLookup } from './url-policy';

// Linux routes all of 127/8 to loopback, so 127.0.0.2 stands in for "some internal host".
const onlyLoopbackOne: AddressPolicy = (address) => address === '127.0.0.1';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

const servers: http.Server[] = [];
let workDir = '';

async function startServer(handler: Handler, host = '127.0.0.1'): Promise<{ port: number; origin: string; hits: string[] }> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  servers.push(server);
  const { port } = server.address() as AddressInfo;
  return { port, origin: `http://${host}:${port}`, hits };
}

async function unusedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Writes `total` bytes of `chunk` repeatedly, respecting backpressure, stopping if the client leaves. */
function pump(res: http.ServerResponse, chunk: Buffer, total: number): void {
  let sent = 0;
  let closed = false;
  res.on('close', () => {
    closed = true;
  });
  const step = () => {
    while (!closed && sent < total) {
      const piece = chunk.subarray(0, Math.min(chunk.length, total - sent));
      sent += piece.length;
      if (!res.write(piece)) {
        res.once('drain', step);
        return;
      }
    }
    if (!closed) res.end();
  };
  step();
}

function trickle(res: http.ServerResponse, everyMs: number): void {
  const timer = setInterval(() => res.write('x'), everyMs);
  res.on('close', () => clearInterval(timer));
}

function options(overrides: Partial<DownloadOptions> & { url: string }): DownloadOptions {
  return {
    destinationPath: join(workDir, 'input.bin'),
    maxBytes: 1024 * 1024,
    timeoutMs: 5_000,
    addressPolicy: onlyLoopbackOne,
    ...overrides,
  };
}

async function expectFailure(promise: Promise<unknown>, code: DownloadError['code'], message: string | RegExp): Promise<DownloadError> {
  const err = await promise.then(
    () => {
      throw new Error('expected the download to fail');
    },
    (e: unknown) => e,
  );
  expect(isDownloadError(err)).toBe(true);
  const downloadError = err as DownloadError;
  if (typeof message === 'string') expect(downloadError.message).toBe(message);
  else expect(downloadError.message).toMatch(message);
  expect(downloadError.code).toBe(code);
  return downloadError;
}

async function expectNothingWritten(): Promise<void> {
  const dest = join(workDir, 'input.bin');
  expect(existsSync(dest)).toBe(false);
  expect(existsSync(`${dest}.part`)).toBe(false);
  expect(await readdir(workDir)).toEqual([]);
}

beforeEach(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'keyframe-download-'));
});

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  await rm(workDir, { recursive: true, force: true });
});

describe('downloadToFile', () => {
  it('writes the exact bytes and leaves no .part file', async () => {
    const body = randomBytes(200_000);
    let seenHeaders: http.IncomingHttpHeaders = {};
    const { origin } = await startServer((req, res) => {
      seenHeaders = req.headers;
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(body.length) });
      res.end(body);
    });
    const dest = join(workDir, 'input.bin');
    const result = await downloadToFile(options({ url: `${origin}/video.mp4`, userAgent: 'keyframe-test' }));
    expect(result).toEqual({ bytes: body.length, contentType: 'video/mp4', finalUrl: `${origin}/video.mp4` });
    expect((await readFile(dest)).equals(body)).toBe(true);
    expect(await readdir(workDir)).toEqual(['input.bin']);
    expect(seenHeaders['accept-encoding']).toBe('identity');
    expect(seenHeaders['user-agent']).toBe('keyframe-test');
  });

  it('accepts a chunked body without Content-Length', async () => {
    const { origin } = await startServer((_req, res) => {
      res.write('hello ');
      setTimeout(() => res.end('world'), 20);
    });
    const result = await downloadToFile(options({ url: `${origin}/chunked` }));
    expect(result.bytes).toBe(11);
    expect(result.contentType).toBeNull();
    expect(await readFile(join(workDir, 'input.bin'), 'utf8')).toBe('hello world');
  });

  it('reports HTTP error statuses', async () => {
    const { origin } = await startServer((req, res) => {
      res.writeHead(req.url === '/missing' ? 404 : 503, 'Custom <b>status</b> text');
      res.end('nope');
    });
    const err = await expectFailure(
      downloadToFile(options({ url: `${origin}/missing` })),
      'http_status',
      'Failed to download input: the server answered 404 Not Found',
    );
    expect(err.httpStatus).toBe(404);
    await expectFailure(
      downloadToFile(options({ url: `${origin}/down` })),
      'http_status',
      'Failed to download input: the server answered 503 Service Unavailable',
    );
    await expectNothingWritten();
  });

  it('follows relative and absolute redirects', async () => {
    const { origin, hits } = await startServer((req, res) => {
      switch (req.url) {
        case '/start':
          res.writeHead(302, { location: 'middle?x=1' }).end();
          break;
        case '/middle?x=1':
          res.writeHead(301, { location: '/dir/next' }).end();
          break;
        case '/dir/next':
          res.writeHead(303, { location: `${origin}/final` }).end();
          break;
        case '/final':
          res.writeHead(307, { location: '../real.mp4' }).end('redirect body is ignored');
          break;
        case '/real.mp4':
          res.writeHead(200, { 'content-type': 'video/mp4' }).end('payload');
          break;
        default:
          res.writeHead(404).end();
      }
    });
    const result = await downloadToFile(options({ url: `${origin}/start` }));
    expect(result.finalUrl).toBe(`${origin}/real.mp4`);
    expect(result.bytes).toBe(7);
    expect(hits).toEqual(['/start', '/middle?x=1', '/dir/next', '/final', '/real.mp4']);
    expect(await readdir(workDir)).toEqual(['input.bin']);
  });

  it('refuses a redirect to a disallowed address without contacting it', async () => {
    const internal = await startServer((_req, res) => res.end('secret'), '127.0.0.2');
    const { origin } = await startServer((_req, res) => {
      res.writeHead(302, { location: `${internal.origin}/secret` }).end();
    });
    await expectFailure(
      downloadToFile(options({ url: `${origin}/start` })),
      'forbidden_address',
      'Failed to download input: redirected to a private or loopback address, which is not allowed',
    );
    expect(internal.hits).toEqual([]);
    await expectNothingWritten();
  });

  it('refuses a disallowed literal input address without connecting', async () => {
    const internal = await startServer((_req, res) => res.end('secret'), '127.0.0.2');
    await expectFailure(
      downloadToFile(options({ url: `${internal.origin}/secret` })),
      'forbidden_address',
      'Failed to download input: the input URL points to a private or loopback address, which is not allowed',
    );
    expect(internal.hits).toEqual([]);
    await expectNothingWritten();
  });

  it('checks the address the socket actually connects to (DNS rebinding)', async () => {
    const internal = await startServer((_req, res) => res.end('secret'), '127.0.0.2');
    const { port, hits } = await startServer((req, res) => {
      if (req.url === '/to-rebound') {
        res.writeHead(302, { location: `http://rebound.test:${internal.port}/secret` }).end();
        return;
      }
      res.end(`served for ${req.headers.host}`);
    });
    const answers: Record<string, string[]> = {
      'good.test': ['127.0.0.1'],
      'rebound.test': ['127.0.0.2'],
      'mixed.test': ['127.0.0.1', '127.0.0.2'],
    };
    const lookupCalls: string[] = [];
    const lookup: HostLookup = async (hostname) => {
      lookupCalls.push(hostname);
      const list = answers[hostname];
      if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return list.map((address) => ({ address, family: 4 }));
    };

    const ok = await downloadToFile(options({ url: `http://good.test:${port}/file`, lookup }));
    expect(ok.bytes).toBe(`served for good.test:${port}`.length);
    expect(lookupCalls).toEqual(['good.test']);
    await rm(join(workDir, 'input.bin'));

    await expectFailure(
      downloadToFile(options({ url: `http://rebound.test:${internal.port}/secret`, lookup })),
      'forbidden_address',
      'Failed to download input: the input URL points to a private or loopback address, which is not allowed',
    );
    await expectFailure(
      downloadToFile(options({ url: `http://mixed.test:${port}/file`, lookup })),
      'forbidden_address',
      /private or loopback address/,
    );
    await expectFailure(
      downloadToFile(options({ url: `http://good.test:${port}/to-rebound`, lookup })),
      'forbidden_address',
      'Failed to download input: redirected to a private or loopback address, which is not allowed',
    );
    await expectFailure(
      downloadToFile(options({ url: `http://nowhere.test:${port}/file`, lookup })),
      'connect_failed',
      'Failed to download input: could not find the server nowhere.test (ENOTFOUND)',
    );
    expect(internal.hits).toEqual([]);
    expect(hits).toEqual(['/file', '/to-rebound']);
    await expectNothingWritten();
  });

  it('refuses more than maxRedirects redirects', async () => {
    const { origin, hits } = await startServer((req, res) => {
      const n = Number((req.url ?? '/0').slice(1));
      res.writeHead(302, { location: `/${n + 1}` }).end();
    });
    await expectFailure(
      downloadToFile(options({ url: `${origin}/0`, maxRedirects: 3 })),
      'too_many_redirects',
      'Failed to download input: too many redirects (more than 3)',
    );
    expect(hits).toEqual(['/0', '/1', '/2', '/3']);
    await expectFailure(
      downloadToFile(options({ url: `${origin}/0` })),
      'too_many_redirects',
      'Failed to download input: too many redirects (more than 5)',
    );
    await expectNothingWritten();
  });

  it('refuses redirects to other schemes', async () => {
    const { origin } = await startServer((_req, res) => {
      res.writeHead(302, { location: 'file:///etc/passwd' }).end();
    });
    await expectFailure(
      downloadToFile(options({ url: `${origin}/x` })),
      'invalid_url',
      'Failed to download input: the server redirected to a URL that does not use http or https',
    );
    await expectNothingWritten();
  });

  it('refuses a declared Content-Length over the limit without reading the body', async () => {
    let serverSawClose = false;
    const { origin } = await startServer((_req, res) => {
      res.writeHead(200, { 'content-length': String(2 * 1024 * 1024 * 1024) });
      res.flushHeaders();
      res.on('close', () => {
        serverSawClose = true;
      });
      // Deliberately never sends the body: the client must decide from the header alone.
    });
    const started = Date.now();
    await expectFailure(
      downloadToFile(options({ url: `${origin}/huge`, maxBytes: 1024 ** 3, timeoutMs: 20_000 })),
      'too_large',
      'Failed to download input: the file is larger than the 1 GiB limit',
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    await expect.poll(() => serverSawClose).toBe(true);
    await expectNothingWritten();
  });

  it('cuts off a chunked body that grows past maxBytes', async () => {
    let serverSawClose = false;
    const { origin } = await startServer((_req, res) => {
      res.on('close', () => {
        serverSawClose = true;
      });
      res.writeHead(200, { 'content-type': 'video/mp4' });
      pump(res, Buffer.alloc(64 * 1024, 7), 64 * 1024 * 1024);
    });
    await expectFailure(
      downloadToFile(options({ url: `${origin}/endless`, maxBytes: 256 * 1024 })),
      'too_large',
      'Failed to download input: the file is larger than the 256 KiB limit',
    );
    await expect.poll(() => serverSawClose).toBe(true);
    await expectNothingWritten();
  });

  it('enforces one deadline across a slow trickling body', async () => {
    const { origin } = await startServer((_req, res) => {
      res.writeHead(200, { 'content-length': '100000' });
      trickle(res, 100);
    });
    const started = Date.now();
    await expectFailure(
      downloadToFile(options({ url: `${origin}/slow`, timeoutMs: 1_000 })),
      'timeout',
      'Failed to download input: the download did not finish within 1 s',
    );
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(2_000);
    await expectNothingWritten();
  });

  it('times out when the server never answers', async () => {
    const { origin } = await startServer(() => {
      // accepts the connection, never responds
    });
    const started = Date.now();
    await expectFailure(
      downloadToFile(options({ url: `${origin}/hang`, timeoutMs: 750 })),
      'timeout',
      'Failed to download input: the download did not finish within 750 ms',
    );
    expect(Date.now() - started).toBeLessThan(1_750);
    await expectNothingWritten();
  });

  it('counts redirect hops against the same deadline', async () => {
    const { origin } = await startServer((req, res) => {
      const n = Number((req.url ?? '/0').slice(1));
      setTimeout(() => res.writeHead(302, { location: `/${n + 1}` }).end(), 300);
    });
    const started = Date.now();
    await expectFailure(
      downloadToFile(options({ url: `${origin}/0`, timeoutMs: 1_000, maxRedirects: 10 })),
      'timeout',
      /did not finish within 1 s/,
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    await expectNothingWritten();
  });

  it('stops when the external signal aborts', async () => {
    const { origin } = await startServer((_req, res) => {
      res.writeHead(200);
      trickle(res, 50);
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const started = Date.now();
    await expectFailure(
      downloadToFile(options({ url: `${origin}/slow`, timeoutMs: 10_000, signal: controller.signal })),
      'cancelled',
      'Failed to download input: the download was cancelled',
    );
    expect(Date.now() - started).toBeLessThan(1_500);
    await expectNothingWritten();

    const fresh = await startServer((_req, res) => res.end('x'));
    await expectFailure(
      downloadToFile(options({ url: `${fresh.origin}/x`, signal: AbortSignal.abort() })),
      'cancelled',
      'Failed to download input: the download was cancelled',
    );
    expect(fresh.hits).toEqual([]);
    await expectNothingWritten();
  });

  it('refuses an empty body', async () => {
    const { origin } = await startServer((req, res) => {
      if (req.url === '/declared') res.writeHead(200, { 'content-length': '0' }).end();
      else if (req.url === '/nocontent') res.writeHead(204).end();
      else res.writeHead(200, { 'transfer-encoding': 'chunked' }).end();
    });
    for (const path of ['/declared', '/chunked', '/nocontent']) {
      await expectFailure(
        downloadToFile(options({ url: `${origin}${path}` })),
        'empty',
        'Failed to download input: the server sent an empty file',
      );
    }
    await expectNothingWritten();
  });

  it('reports a body cut short of its Content-Length', async () => {
    const { origin } = await startServer((_req, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write(Buffer.alloc(500, 1), () => res.socket?.destroy());
    });
    await expectFailure(
      downloadToFile(options({ url: `${origin}/short` })),
      'network',
      /^Failed to download input: the connection to 127\.0\.0\.1:\d+ was interrupted before the download finished/,
    );
    await expectNothingWritten();
  });

  it('reports refused connections', async () => {
    const port = await unusedPort();
    await expectFailure(
      downloadToFile(options({ url: `http://127.0.0.1:${port}/x` })),
      'connect_failed',
      `Failed to download input: could not connect to 127.0.0.1:${port} (ECONNREFUSED)`,
    );
    await expectNothingWritten();
  });

  it('rejects invalid input URLs before connecting', async () => {
    await expectFailure(
      downloadToFile(options({ url: 'ftp://127.0.0.1/file' })),
      'invalid_url',
      'Failed to download input: input URL must use http or https',
    );
    await expectNothingWritten();
  });

  it('refuses compressed responses it did not ask for', async () => {
    const { origin } = await startServer((_req, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip' }).end('not really gzip');
    });
    await expectFailure(downloadToFile(options({ url: `${origin}/gz` })), 'unsupported_encoding', /compressed response \(gzip\)/);
    await expectNothingWritten();
  });

  it('reports local disk failures as such', async () => {
    const { origin } = await startServer((_req, res) => res.end('payload'));
    // A directory squatting on the .part path makes the file stream's open() fail.
    await mkdir(join(workDir, 'input.bin.part'));
    await expectFailure(
      downloadToFile(options({ url: `${origin}/x` })),
      'disk',
      'Failed to download input: could not write the file to disk (EISDIR)',
    );
    expect(existsSync(join(workDir, 'input.bin'))).toBe(false);
  });

  it('streams a 50 MB body correctly and quickly', async () => {
    const block = randomBytes(1024 * 1024);
    const total = 50 * block.length;
    const expected = createHash('sha256');
    for (let i = 0; i < 50; i += 1) expected.update(block);
    const { origin } = await startServer((_req, res) => {
      res.writeHead(200, { 'content-length': String(total), 'content-type': 'video/quicktime' });
      pump(res, block, total);
    });
    const dest = join(workDir, 'input.bin');
    const started = Date.now();
    const result = await downloadToFile(options({ url: `${origin}/big.mov`, maxBytes: 64 * 1024 * 1024, timeoutMs: 20_000 }));
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.bytes).toBe(total);
    expect(result.contentType).toBe('video/quicktime');
    const actual = createHash('sha256').update(await readFile(dest)).digest('hex');
    expect(actual).toBe(expected.digest('hex'));
    expect(await readdir(workDir)).toEqual(['input.bin']);
  });
});
