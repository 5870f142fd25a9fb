import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { unavailableDependencyOf } from '../errors/dependency-unavailable';
import { ChildProcessSet } from './child-process-set';
import { withCpuReport } from './cpu-report';
import { inputReadFailure } from './input-read-failure';
import { runProcess } from './run-process';
import { aac, FFMPEG, ffmpeg, x264 } from './test-support/media-fixtures';

// A real ffmpeg reading a real HTTP server that fails the ways a bucket in an outage does.

type Behaviour = 'serve' | 'unavailable' | 'cut';

const children = new ChildProcessSet();
let workDir: string;
let source: Buffer;
let server: http.Server;
let behaviour: Behaviour = 'serve';
let base: string;

beforeAll(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), 'kf-input-read-'));
  const file = path.join(workDir, 'source.mp4');
  await ffmpeg('-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=30:duration=6', '-f', 'lavfi', '-i', 'sine=duration=6', ...x264, ...aac, '-shortest', file);
  source = await readFile(file);
  server = http.createServer((request, response) => {
    if (behaviour === 'unavailable') {
      response.writeHead(503, { 'content-type': 'application/xml' }).end('<Error><Code>ServiceUnavailable</Code></Error>');
      return;
    }
    const match = /bytes=(\d+)-(\d*)/.exec(request.headers.range ?? '');
    const start = match ? Number(match[1]) : 0;
    const end = match?.[2] ? Number(match[2]) : source.length - 1;
    response.writeHead(match ? 206 : 200, {
      'accept-ranges': 'bytes',
      'content-length': end - start + 1,
      ...(match ? { 'content-range': `bytes ${start}-${end}/${source.length}` } : {}),
    });
    if (behaviour === 'cut') {
      // The connection drops part-way through the body, as when a proxy resets it.
      response.write(source.subarray(start, start + 40_000));
      setTimeout(() => request.socket.destroy(), 50);
      return;
    }
    response.end(source.subarray(start, end + 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await rm(workDir, { recursive: true, force: true });
});

const decodeAll = async (input: string) => {
  const args = withCpuReport(['-nostdin', '-i', input, '-f', 'null', '-']);
  const result = await runProcess({ command: FFMPEG, args, children, timeoutMs: 30_000 });
  return { args, result };
};

describe('inputReadFailure', () => {
  const presigned = () => `${base}/assets/a/source?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=abc`;

  test('a bucket answering 503: a storage outage, whose message does not quote the URL', async () => {
    behaviour = 'unavailable';
    const { args, result } = await decodeAll(presigned());
    const failure = inputReadFailure(args, result.stderr);
    expect(failure, result.stderr).not.toBeNull();
    expect(unavailableDependencyOf(failure)).toBe('storage');
    expect(failure!.message).toMatch(/503/);
    expect(failure!.message).not.toContain('X-Amz-Signature');
  });

  test('a response cut short: an outage even though ffmpeg may exit 0 with part of the input decoded', async () => {
    behaviour = 'cut';
    const { args, result } = await decodeAll(presigned());
    const failure = inputReadFailure(args, result.stderr);
    expect(failure, result.stderr).not.toBeNull();
    expect(unavailableDependencyOf(failure)).toBe('storage');
  });

  test('an HTTP input that is not the bucket (a source still downloading) is a network failure', async () => {
    behaviour = 'unavailable';
    const { args, result } = await decodeAll(`${base}/sources/a`);
    expect(unavailableDependencyOf(inputReadFailure(args, result.stderr))).toBe('network');
  });

  test('a whole read is no failure, and neither is a broken local file (that is the media, not an outage)', async () => {
    behaviour = 'serve';
    const whole = await decodeAll(presigned());
    expect(whole.result.exitCode).toBe(0);
    expect(inputReadFailure(whole.args, whole.result.stderr)).toBeNull();

    const local = await decodeAll(path.join(workDir, 'missing.mp4'));
    expect(local.result.exitCode).not.toBe(0);
    expect(inputReadFailure(local.args, local.result.stderr)).toBeNull();
    // The words alone, with no HTTP input, say nothing about a dependency.
    expect(inputReadFailure(['-i', '/data/source.mp4', '-f', 'null', '-'], '[error] Connection refused')).toBeNull();
  });
});
