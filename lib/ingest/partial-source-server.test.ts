import { randomBytes } from 'node:crypto';
import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { fetchRangeToFile, RangeNotServedError } from './fetch-range';
import { GrowingFile } from './growing-file';
import { PartialSourceServer } from './partial-source-server';
import { writeFully } from './positional-file-sink';
import { allowAllAddresses } from './url-policy';

const partialSources = new PartialSourceServer();

let dir: string;
const content = randomBytes(3 * 1024 * 1024 + 17);

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'keyframe-partial-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const get = (url: string, range?: string) =>
  new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer; complete: boolean }>((resolve, reject) => {
    http
      .get(url, { headers: range ? { Range: range } : {} }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        const finish = () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks), complete: response.complete });
        response.on('end', finish);
        response.on('error', finish);
        response.on('aborted', finish);
      })
      .on('error', reject);
  });

const partialFile = async (name: string) => {
  const partPath = path.join(dir, `${name}.part`);
  const handle = await open(partPath, 'w');
  const file = new GrowingFile(partPath, content.length);
  const write = async (start: number, end: number) => writeFully(handle, [content.subarray(start, end)], start);
  const served = await partialSources.serve(name, file, path.join(dir, name));
  return { file, handle, write, url: served.url, release: served.release };
};

describe('partial source server', () => {
  test('a range past the downloaded prefix is answered with the real bytes once they arrive, never the hole', async () => {
    const source = await partialFile('grows');
    await source.write(0, 1000);
    source.file.advancePrefix(1000);
    const pending = get(source.url, 'bytes=2000000-');
    // The hole between 1000 and the end reads as zeros on disk; the server must not send it.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await source.write(1000, content.length);
    source.file.advancePrefix(content.length);
    const response = await pending;
    expect(response.status).toBe(206);
    expect(response.headers['content-range']).toBe(`bytes 2000000-${content.length - 1}/${content.length}`);
    expect(response.body.equals(content.subarray(2_000_000))).toBe(true);
    await source.handle.close();
    source.release();
  });

  test('a range fetched ahead of the prefix is served at once; a failed download cuts the reader off', async () => {
    const source = await partialFile('fails');
    const tailStart = content.length - 500_000;
    await source.write(tailStart, content.length);
    source.file.addRange(tailStart, content.length);
    const tail = await get(source.url, `bytes=${tailStart}-`);
    expect(tail.body.equals(content.subarray(tailStart))).toBe(true);

    const whole = get(source.url);
    await new Promise((resolve) => setTimeout(resolve, 50));
    source.file.fail(new Error('connection reset'));
    const cut = await whole;
    expect(cut.status).toBe(200);
    expect(cut.complete).toBe(false);
    expect(cut.body.length).toBeLessThan(content.length);
    await source.handle.close();
    source.release();
  });

  test('unknown keys are 404', async () => {
    const source = await partialFile('known');
    expect((await get(source.url.replace(/known$/, 'unknown'))).status).toBe(404);
    source.release();
    expect((await get(source.url)).status).toBe(404);
    await source.handle.close();
  });
});

describe('fetchRangeToFile', () => {
  const serve = async (handler: http.RequestListener) => {
    const server = http.createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/file`, close: () => new Promise((resolve) => server.close(resolve)) };
  };

  test('writes the range at its offsets, sending If-Range; a server that ignores Range is refused', async () => {
    const seen: Array<string | undefined> = [];
    const ranged = await serve((request, response) => {
      seen.push(request.headers['if-range'] as string | undefined);
      const [, from, to] = /bytes=(\d+)-(\d+)/.exec(request.headers.range ?? '') ?? [];
      const [start, end] = [Number(from), Number(to)];
      response.writeHead(206, { 'Content-Range': `bytes ${start}-${end}/${content.length}`, 'Content-Length': String(end - start + 1) });
      response.end(content.subarray(start, end + 1));
    });
    const target = path.join(dir, 'ranged.part');
    await writeFile(target, '');
    const common = { totalBytes: content.length, filePath: target, addressPolicy: allowAllAddresses, signal: new AbortController().signal, userAgent: 'test' };
    await fetchRangeToFile({ ...common, url: ranged.url, start: 1_000_000, end: content.length, ifRange: '"v1"' });
    const written = await readFile(target);
    expect(written.subarray(1_000_000).equals(content.subarray(1_000_000))).toBe(true);
    expect(seen).toEqual(['"v1"']);
    await ranged.close();

    const whole = await serve((_request, response) => {
      response.writeHead(200, { 'Content-Length': String(content.length) });
      response.end(content);
    });
    await expect(fetchRangeToFile({ ...common, url: whole.url, start: 5, end: 10, ifRange: null })).rejects.toBeInstanceOf(RangeNotServedError);
    await whole.close();
  });
});
