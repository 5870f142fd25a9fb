import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it, type TestContext } from 'vitest';
import { aac, ffmpeg, FFMPEG, FFPROBE, x264 } from '../media/test-support/media-fixtures';
import { runProcess } from '../media/run-process';
import type { RunningSwiftS3 } from '../../harness/swift-s3.mjs';
import { createLocalDiskStore } from './local-disk-store';
import type { ObjectStore, S3ObjectStore } from './object-store';
import { createS3Store } from './s3-store';
import { s3OptionsOf, startTestSwift, SWIFT_START_TIMEOUT_MS } from './test-support/swift-fixture';
import { ChildProcessSet } from '../media/child-process-set';

const children = new ChildProcessSet();

// The same contract for both drivers: local disk always, S3 against a real Swift + s3api.

let swift: RunningSwiftS3 | null = null;
let s3: S3ObjectStore | null = null;
let scratch = '';

beforeAll(async () => {
  swift = await startTestSwift('keyframe-object-store-test');
  if (swift) s3 = createS3Store(s3OptionsOf(swift));
}, SWIFT_START_TIMEOUT_MS);

afterAll(async () => {
  s3?.close();
  await swift?.stop();
});

beforeEach(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'keyframe-object-store-'));
});

afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

// Tests share one bucket: each works under a prefix of its own.
const uniquePrefix = () => `t-${randomBytes(6).toString('hex')}`;

const drivers = ['local-disk', 's3'] as const;

describe.each(drivers)('%s object store', (kind) => {
  let store: ObjectStore | null = null;
  beforeEach(() => {
    store = kind === 'local-disk' ? createLocalDiskStore({ root: path.join(scratch, 'data') }) : s3;
  });
  const storeOrSkip = (context: TestContext): ObjectStore => {
    if (!store) context.skip('Swift is not available here');
    return store as ObjectStore;
  };

  it('puts bytes and a file, then gets, stats and streams them whole and by range', async (context) => {
    const objects = storeOrSkip(context);
    const prefix = uniquePrefix();
    const bytes = Buffer.from('0123456789abcdefghij');
    await objects.put(`${prefix}/hls/540p/3.m4s`, bytes, { contentType: 'video/mp4' });
    const file = path.join(scratch, 'input.bin');
    await writeFile(file, 'from a file');
    await objects.put(`${prefix}/source`, { file });
    await objects.put(`${prefix}/part`, { file, range: { start: 5, end: 8 } });

    const info = await objects.stat(`${prefix}/hls/540p/3.m4s`);
    expect(info?.size).toBe(20);
    expect(info?.lastModified.getTime()).toBeGreaterThan(Date.now() - 600_000);

    const target = path.join(scratch, 'cache', 'assets', 'x', '3.m4s');
    expect(await objects.getToFile(`${prefix}/hls/540p/3.m4s`, target)).toBe(true);
    expect(await readFile(target, 'utf8')).toBe('0123456789abcdefghij');
    expect(await text((await objects.createReadStream(`${prefix}/source`))!)).toBe('from a file');
    expect(await text((await objects.createReadStream(`${prefix}/part`))!)).toBe('a fi');
    expect(await text((await objects.createReadStream(`${prefix}/hls/540p/3.m4s`, { start: 5, end: 9 }))!)).toBe('56789');
  });

  it('answers null/false for a missing object and deletes idempotently', async (context) => {
    const objects = storeOrSkip(context);
    const key = `${uniquePrefix()}/missing.m4s`;
    expect(await objects.stat(key)).toBeNull();
    expect(await objects.createReadStream(key)).toBeNull();
    const target = path.join(scratch, 'never');
    expect(await objects.getToFile(key, target)).toBe(false);
    await expect(stat(target)).rejects.toMatchObject({ code: 'ENOENT' });
    await objects.delete(key);

    await objects.put(key, Buffer.from('x'));
    await objects.delete(key);
    expect(await objects.stat(key)).toBeNull();
  });

  it('deletes a prefix as a folder: everything below it, nothing beside it', async (context) => {
    const objects = storeOrSkip(context);
    const prefix = uniquePrefix();
    const doomed = [`${prefix}/ab/source`, `${prefix}/ab/hls/540p/0.m4s`, `${prefix}/ab/hls/540p/init.mp4`, `${prefix}/ab/images/t.jpg`];
    const kept = [`${prefix}/abc/source`, `${prefix}/a/source`];
    await Promise.all([...doomed, ...kept].map((key) => objects.put(key, Buffer.from(key))));

    expect((await objects.listFolder(`${prefix}/ab/`)).sort()).toEqual(['source']);
    expect((await objects.listFolder(`${prefix}/ab/hls/540p/`)).sort()).toEqual(['0.m4s', 'init.mp4']);
    expect(await objects.listFolder(`${prefix}/nothing/`)).toEqual([]);
    await objects.deletePrefix(`${prefix}/ab/`);
    expect(await Promise.all(doomed.map((key) => objects.stat(key)))).toEqual(doomed.map(() => null));
    expect((await Promise.all(kept.map((key) => objects.stat(key)))).map((info) => info?.size)).toEqual(kept.map((key) => key.length));
    await objects.deletePrefix(`${prefix}/ab/`);
    await expect(objects.deletePrefix(`${prefix}/ab`)).rejects.toThrow(RangeError);
  });

  it('lists and deletes a prefix holding more objects than one list page or delete request takes', async (context) => {
    if (kind === 'local-disk') context.skip('one rm on disk');
    if (!swift) context.skip('Swift is not available here');
    // Pages of 25 (S3's are 1,000): the paging is what is under test, not the bucket's patience.
    const objects = createS3Store({ ...s3OptionsOf(swift!), pageSize: 25 });
    const prefix = uniquePrefix();
    const keys = Array.from({ length: 110 }, (_, index) => `${prefix}/hls/540p/${index}.m4s`);
    await Promise.all(keys.map((key) => objects.put(key, Buffer.from('s'))));
    expect((await objects.listFolder(`${prefix}/hls/540p/`)).sort()).toEqual(keys.map((key) => key.slice(`${prefix}/hls/540p/`.length)).sort());
    await objects.deletePrefix(`${prefix}/`);
    expect(await objects.listFolder(`${prefix}/hls/540p/`)).toEqual([]);
    objects.close();
  });

  it('never shows a reader a partial object while a large put is under way', async (context) => {
    const objects = storeOrSkip(context);
    const prefix = uniquePrefix();
    // Bytes in memory (one PUT) and a file above the multipart threshold (several parts).
    const bytes = randomBytes(24 * 1024 ** 2);
    const file = path.join(scratch, 'large.bin');
    await writeFile(file, randomBytes(40 * 1024 ** 2));
    const fileBytes = await readFile(file);

    for (const [key, body, expected] of [
      [`${prefix}/from-memory`, bytes, bytes],
      [`${prefix}/from-file`, { file }, fileBytes],
    ] as const) {
      const seen: string[] = [];
      let finished = false;
      const putting = objects.put(key, body).finally(() => {
        finished = true;
      });
      const reader = path.join(scratch, 'reader.bin');
      while (!finished) {
        const found = await objects.getToFile(key, reader);
        if (!found) {
          seen.push('missing');
          continue;
        }
        const read = await readFile(reader);
        seen.push(read.length === expected.length && sha256(read) === sha256(expected) ? 'complete' : `partial ${read.length}`);
      }
      await putting;
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.filter((outcome) => outcome !== 'missing' && outcome !== 'complete')).toEqual([]);
      expect((await objects.stat(key))?.size).toBe(expected.length);
      expect(await objects.getToFile(key, reader)).toBe(true);
      expect(sha256(await readFile(reader))).toBe(sha256(expected));
    }
  }, 120_000);

  it('refuses keys that are not plain relative paths', async (context) => {
    const objects = storeOrSkip(context);
    for (const key of ['', '/abs', 'a//b', 'a/../b', './a', 'a/', 'a\\b', 'a b']) {
      await expect(objects.put(key, Buffer.from('x')), key).rejects.toThrow(RangeError);
    }
  });
});

describe('local-disk object store', () => {
  it('makes no copy when the file to put is already at its final path', async () => {
    const store = createLocalDiskStore({ root: scratch });
    const key = 'assets/a1/source';
    const file = store.pathOf(key);
    await store.put(key, Buffer.from('original'));
    const before = await stat(file);
    await store.put(key, { file });
    const after = await stat(file);
    expect(after.ino).toBe(before.ino);
    expect(await store.getToFile(key, path.join(scratch, 'assets', 'a1', 'source'))).toBe(true);
    expect(await readFile(file, 'utf8')).toBe('original');
  });

  it('keeps today\'s layout under the root', () => {
    const store = createLocalDiskStore({ root: scratch });
    expect(store.pathOf('assets/a1/hls/540p/3.m4s')).toBe(path.join(scratch, 'assets', 'a1', 'hls', '540p', '3.m4s'));
  });
});

describe('S3 object store on Swift', () => {
  const s3OrSkip = (context: TestContext): S3ObjectStore => {
    if (!s3 || !swift) context.skip('Swift is not available here');
    return s3 as S3ObjectStore;
  };

  it('hands out presigned URLs that work with Range, and Swift refuses forged or missing signatures', async (context) => {
    const objects = s3OrSkip(context);
    const key = `${uniquePrefix()}/signed.bin`;
    await objects.put(key, Buffer.from('presigned bytes'));
    const url = await objects.presignedGetUrl(key, 60);

    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(await whole.text()).toBe('presigned bytes');
    const ranged = await fetch(url, { headers: { range: 'bytes=10-14' } });
    expect(ranged.status).toBe(206);
    expect(await ranged.text()).toBe('bytes');

    const forged = new URL(url);
    const signature = forged.searchParams.get('X-Amz-Signature') ?? '';
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    forged.searchParams.set('X-Amz-Signature', `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`);
    expect((await fetch(forged)).status).toBe(403);
    const unsigned = new URL(url);
    unsigned.search = '';
    const anonymous = await fetch(unsigned);
    // Swift answers an anonymous GET with 400 or 401 depending on the path through tempauth.
    expect(anonymous.status).toBeGreaterThanOrEqual(400);
    expect(await anonymous.text()).not.toContain('presigned bytes');

    const impostor = createS3Store({ ...s3OptionsOf(swift!), secretAccessKey: 'not-the-secret' });
    try {
      await expect(impostor.stat(key)).rejects.toMatchObject({ $metadata: { httpStatusCode: 403 } });
      await expect(impostor.put(key, Buffer.from('overwritten'))).rejects.toMatchObject({ name: 'SignatureDoesNotMatch' });
    } finally {
      impostor.close();
    }
    expect(await text((await objects.createReadStream(key))!)).toBe('presigned bytes');
  });

  it('gives ffprobe and ffmpeg a presigned URL they can read and seek in', async (context) => {
    const objects = s3OrSkip(context);
    const clip = path.join(scratch, 'clip.mp4');
    await ffmpeg(
      ...['-f', 'lavfi', '-i', 'testsrc2=size=320x180:rate=25:duration=4', '-f', 'lavfi', '-i', 'sine=duration=4'],
      ...[...x264, '-g', '25', ...aac, '-shortest', clip],
    );
    const key = `${uniquePrefix()}/source`;
    await objects.put(key, { file: clip });
    const url = await objects.presignedGetUrl(key, 300);

    const probe = await runProcess({ command: FFPROBE, args: ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', url], children });
    expect(probe.exitCode, probe.stderr).toBe(0);
    expect(Number(probe.stdout.trim())).toBeCloseTo(4, 0);

    const frame = path.join(scratch, 'frame.png');
    const grab = await runProcess({ command: FFMPEG, args: ['-v', 'error', '-ss', '3', '-i', url, '-frames:v', '1', '-y', frame], children });
    expect(grab.exitCode, grab.stderr).toBe(0);
    expect((await stat(frame)).size).toBeGreaterThan(1000);
  });
});
