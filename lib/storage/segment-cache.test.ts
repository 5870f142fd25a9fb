import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SegmentCache } from './segment-cache';

let root = '';
const at = (relative: string): string => path.join(root, relative);

const writeSegment = async (relative: string, bytes: number, mtimeSeconds?: number): Promise<string> => {
  const file = at(relative);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, Buffer.alloc(bytes, 1));
  if (mtimeSeconds !== undefined) await utimes(file, mtimeSeconds, mtimeSeconds);
  return file;
};

const present = (...relatives: string[]): Record<string, boolean> =>
  Object.fromEntries(relatives.map((relative) => [relative, existsSync(at(relative))]));

const newCache = (maxBytes: number | null) => {
  const evicted: string[] = [];
  const errors: Array<{ error: unknown; path: string }> = [];
  const cache = new SegmentCache({
    maxBytes,
    onEvict: (file) => evicted.push(path.relative(root, file)),
    onError: (error, file) => errors.push({ error, path: file }),
  });
  return { cache, evicted, errors };
};

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'keyframe-segment-cache-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('SegmentCache', () => {
  it('evicts the least recently used segments, with touch counting as use', async () => {
    const { cache, evicted } = newCache(300);
    for (const name of ['a', 'b', 'c']) cache.record(await writeSegment(name, 100), 100);
    expect(cache.totalBytes()).toBe(300);

    expect(cache.touch(at('a'))).toBe(true);
    cache.record(await writeSegment('d', 100), 100);
    expect(cache.totalBytes()).toBe(300);
    expect(cache.has(at('b'))).toBe(false);
    await cache.whenIdle();
    expect(evicted).toEqual(['b']);
    expect(present('a', 'b', 'c', 'd')).toEqual({ a: true, b: false, c: true, d: true });

    // Needs two victims; c is now the oldest, then a.
    cache.record(await writeSegment('e', 150), 150);
    await cache.whenIdle();
    expect(evicted).toEqual(['b', 'c', 'a']);
    expect(present('a', 'c', 'd', 'e')).toEqual({ a: false, c: false, d: true, e: true });
    expect(cache.totalBytes()).toBe(250);
    expect(cache.entryCount()).toBe(2);
  });

  it('keeps the segment just recorded even when it alone exceeds the cap', async () => {
    const { cache, evicted } = newCache(250);
    cache.record(await writeSegment('old-1', 100), 100);
    cache.record(await writeSegment('old-2', 100), 100);
    cache.record(await writeSegment('huge', 400), 400);
    await cache.whenIdle();
    expect(evicted).toEqual(['old-1', 'old-2']);
    expect(present('huge')).toEqual({ huge: true });
    expect(cache.has(at('huge'))).toBe(true);
    expect(cache.totalBytes()).toBe(400);

    // The next one evicts it like any other.
    cache.record(await writeSegment('next', 10), 10);
    await cache.whenIdle();
    expect(evicted).toEqual(['old-1', 'old-2', 'huge']);
    expect(cache.totalBytes()).toBe(10);
  });

  it('counts a re-recorded path once, as most recently used', async () => {
    const { cache, evicted } = newCache(300);
    cache.record(await writeSegment('a', 100), 100);
    cache.record(await writeSegment('b', 100), 100);
    cache.record(await writeSegment('a', 120), 120);
    expect(cache.totalBytes()).toBe(220);
    cache.record(await writeSegment('c', 100), 100);
    await cache.whenIdle();
    expect(evicted).toEqual(['b']);
  });

  it('does not delete a file that was published again before its eviction ran', async () => {
    const { cache, evicted } = newCache(150);
    cache.record(await writeSegment('a', 100), 100);
    cache.record(await writeSegment('b', 100), 100); // a chosen for eviction
    cache.record(at('a'), 100); // republished at once: b is chosen now
    await cache.whenIdle();
    expect(evicted).toEqual(['b']);
    expect(present('a', 'b')).toEqual({ a: true, b: false });
    expect(cache.has(at('a'))).toBe(true);
  });

  it('runs evictions one at a time, in LRU order, and reports failures without stopping', async () => {
    const { cache, evicted, errors } = newCache(100);
    // rm without `recursive` fails on a non-empty directory.
    await writeSegment('stuck/inner', 1);
    cache.record(at('stuck'), 50);
    cache.record(await writeSegment('x', 50), 50);
    cache.record(await writeSegment('y', 50), 50);
    cache.record(await writeSegment('z', 50), 50);
    expect(cache.totalBytes()).toBe(100);
    await cache.whenIdle();
    expect(errors.map((e) => path.relative(root, e.path))).toEqual(['stuck']);
    expect(evicted).toEqual(['x']);
    expect(cache.has(at('stuck'))).toBe(false);
    expect(present('x', 'y', 'z')).toEqual({ x: false, y: true, z: true });
  });

  it('survives a throwing onError and onEvict', async () => {
    const cache = new SegmentCache({
      maxBytes: 10,
      onEvict: () => {
        throw new Error('listener bug');
      },
      onError: () => {
        throw new Error('logger bug');
      },
    });
    cache.record(await writeSegment('a', 10), 10);
    cache.record(await writeSegment('b', 10), 10);
    cache.record(await writeSegment('c', 10), 10);
    await cache.whenIdle();
    expect(present('a', 'b', 'c')).toEqual({ a: false, b: false, c: true });
  });

  it('never deletes anything when unbounded', async () => {
    const { cache, evicted } = newCache(null);
    for (let i = 0; i < 20; i++) cache.record(await writeSegment(`s${i}`, 1000), 1000);
    await cache.whenIdle();
    expect(evicted).toEqual([]);
    expect(cache.totalBytes()).toBe(20_000);
    expect(Object.values(present(...Array.from({ length: 20 }, (_, i) => `s${i}`))).every(Boolean)).toBe(true);
  });

  it('forgets single files and whole directories without deleting them', async () => {
    const { cache, evicted } = newCache(1000);
    const files = [
      'assets/ab/hls/720p/0.m4s',
      'assets/ab/hls/720p/1.m4s',
      'assets/ab/hls/audio/0.m4s',
      'assets/abc/hls/720p/0.m4s',
      'assets/x/hls/720p/0.m4s',
    ];
    for (const file of files) cache.record(await writeSegment(file, 10), 10);

    expect(cache.forget(at('assets/x/hls/720p/0.m4s'))).toBe(true);
    expect(cache.forget(at('assets/x/hls/720p/0.m4s'))).toBe(false);
    expect(cache.forgetUnder(at('assets/ab/'))).toBe(3);
    expect(cache.forgetUnder(at('assets/ab'))).toBe(0);
    expect(cache.has(at('assets/abc/hls/720p/0.m4s'))).toBe(true);
    expect(cache.totalBytes()).toBe(10);
    expect(cache.touch(at('assets/ab/hls/720p/0.m4s'))).toBe(false);
    await cache.whenIdle();
    expect(evicted).toEqual([]);
    expect(Object.values(present(...files)).every(Boolean)).toBe(true);
  });

  it('treats relative and absolute spellings of a path as the same entry', async () => {
    const { cache } = newCache(null);
    const file = await writeSegment('seg.m4s', 5);
    cache.record(path.relative(process.cwd(), file), 5);
    expect(cache.has(file)).toBe(true);
    expect(cache.touch(path.join(root, 'sub', '..', 'seg.m4s'))).toBe(true);
    expect(cache.forget(file)).toBe(true);
    expect(cache.totalBytes()).toBe(0);
  });

  it('rejects invalid limits and sizes', () => {
    expect(() => new SegmentCache({ maxBytes: -1 })).toThrow(RangeError);
    expect(() => new SegmentCache({ maxBytes: Number.NaN })).toThrow(RangeError);
    expect(() => new SegmentCache({ maxBytes: null }).record('/x', -5)).toThrow(RangeError);
  });
});

describe('SegmentCache.rebuildFromDisk', () => {
  const isCacheable = (relative: string): boolean => /^assets\/[^/]+\/hls\/[^/]+\/(init\.mp4|\d+\.m4s)$/.test(relative);

  it('indexes cacheable files by mtime and evicts the oldest down to the cap', async () => {
    await writeSegment('assets/a/hls/720p/init.mp4', 100, 1_000);
    await writeSegment('assets/a/hls/720p/0.m4s', 100, 4_000);
    await writeSegment('assets/a/hls/720p/1.m4s', 100, 2_000);
    await writeSegment('assets/b/hls/audio/0.m4s', 100, 5_000);
    await writeSegment('assets/b/hls/audio/1.m4s', 100, 3_000);
    await writeSegment('assets/a/source', 10_000, 0);
    await writeSegment('assets/a/hls/720p/complete.json', 10, 0);

    const seen: string[] = [];
    const { cache, evicted } = newCache(250);
    const found = await cache.rebuildFromDisk(root, (relative) => {
      seen.push(relative);
      return isCacheable(relative);
    });
    expect(found).toBe(5);
    expect(seen).toContain('assets/a/hls/720p/0.m4s');
    expect(seen).toContain('assets/a/source');

    // Already deleted when rebuildFromDisk resolves.
    expect(evicted).toEqual(['assets/a/hls/720p/init.mp4', 'assets/a/hls/720p/1.m4s', 'assets/b/hls/audio/1.m4s']);
    expect(present('assets/a/hls/720p/init.mp4', 'assets/a/hls/720p/1.m4s', 'assets/b/hls/audio/1.m4s', 'assets/a/source', 'assets/a/hls/720p/complete.json')).toEqual({
      'assets/a/hls/720p/init.mp4': false,
      'assets/a/hls/720p/1.m4s': false,
      'assets/b/hls/audio/1.m4s': false,
      'assets/a/source': true,
      'assets/a/hls/720p/complete.json': true,
    });
    expect(cache.totalBytes()).toBe(200);

    // The survivors keep their mtime order: a/0 (4000) is older than b/audio/0 (5000).
    cache.record(await writeSegment('assets/c/hls/720p/0.m4s', 100), 100);
    await cache.whenIdle();
    expect(evicted.at(-1)).toBe('assets/a/hls/720p/0.m4s');
    expect(cache.has(at('assets/b/hls/audio/0.m4s'))).toBe(true);
  });

  it('keeps entries recorded in-process as more recent than files found on disk', async () => {
    await writeSegment('assets/a/hls/720p/0.m4s', 100, 9_000_000_000);
    const fresh = await writeSegment('assets/a/hls/720p/1.m4s', 100, 1_000);
    const { cache, evicted } = newCache(150);
    cache.record(fresh, 100);
    await cache.rebuildFromDisk(root, isCacheable);
    expect(evicted).toEqual(['assets/a/hls/720p/0.m4s']);
    expect(cache.has(fresh)).toBe(true);
    expect(cache.totalBytes()).toBe(100);
  });

  it('indexes without deleting when unbounded, and copes with a missing directory', async () => {
    await writeSegment('assets/a/hls/720p/0.m4s', 100, 1_000);
    await writeSegment('assets/a/hls/720p/1.m4s', 100, 2_000);
    const { cache, evicted } = newCache(null);
    expect(await cache.rebuildFromDisk(root, isCacheable)).toBe(2);
    expect(cache.totalBytes()).toBe(200);
    expect(evicted).toEqual([]);

    const empty = newCache(10);
    expect(await empty.cache.rebuildFromDisk(at('does-not-exist'), isCacheable)).toBe(0);
    expect(empty.cache.totalBytes()).toBe(0);
  });
});
