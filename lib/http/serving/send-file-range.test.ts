import { closeSync, fstatSync, mkdtempSync, openSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CHUNK_BYTES, sendFileRange } from './send-file-range';

// A real HTTP server and client: the pooled buffers must never show up in another response.

const size = CHUNK_BYTES * 3 + 12_345;
const content = Buffer.alloc(size);
for (let index = 0; index < size; index++) content[index] = (index * 7 + (index >> 11)) & 0xff;
let fd: number;
let server: http.Server;
let base: string;

beforeAll(async () => {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'send-file-range-')), 'data');
  writeFileSync(file, content);
  fd = openSync(file, 'r');
  server = http.createServer((request, response) => {
    const [start, end] = (request.url ?? '').slice(1).split('-').map(Number) as [number, number];
    response.writeHead(200, { 'content-length': String(Math.max(0, end - start + 1)) });
    sendFileRange(fd, start, end, response).catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.close();
  closeSync(fd);
});

const fetchRange = async (start: number, end: number) => Buffer.from(await (await fetch(`${base}/${start}-${end}`)).arrayBuffer());

describe('sendFileRange', () => {
  test('many concurrent responses of different ranges each get exactly their bytes', async () => {
    const ranges = Array.from({ length: 40 }, (_, index) => {
      const start = (index * 100_003) % (size - 1);
      return [start, Math.min(size - 1, start + ((index * 217_001) % size))] as const;
    });
    const bodies = await Promise.all(ranges.map(([start, end]) => fetchRange(start, end)));
    bodies.forEach((body, index) => {
      const [start, end] = ranges[index]!;
      expect(body.equals(content.subarray(start, end + 1)), `range ${start}-${end}`).toBe(true);
    });
    expect((await fetchRange(0, size - 1)).equals(content)).toBe(true);
  });

  test('leaves the descriptor open, also after clients went away midway', async () => {
    const aborted = new AbortController();
    const response = await fetch(`${base}/0-${size - 1}`, { signal: aborted.signal });
    const reader = response.body!.getReader();
    await reader.read();
    aborted.abort();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(() => fstatSync(fd)).not.toThrow();
    expect((await fetchRange(5, 70_000)).equals(content.subarray(5, 70_001))).toBe(true);
  });
});
