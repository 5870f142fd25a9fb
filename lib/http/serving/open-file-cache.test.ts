import { fstatSync, mkdtempSync, readSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { OpenFileCache } from './open-file-cache';

const isOpen = (fd: number) => {
  try {
    fstatSync(fd);
    return true;
  } catch {
    return false;
  }
};

const readAll = (fd: number, size: number) => {
  const buffer = Buffer.alloc(size);
  readSync(fd, buffer, 0, size, 0);
  return buffer.toString('utf8');
};

const tempFile = (content: string) => {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'open-file-cache-')), 'segment.m4s');
  writeFileSync(file, content);
  return file;
};

describe('OpenFileCache', () => {
  test('a hot file is opened once and shared by concurrent readers', async () => {
    const cache = new OpenFileCache({ maxEntries: 10, validMs: 60_000 });
    const file = tempFile('hello');
    const [a, b] = await Promise.all([cache.acquire(file), cache.acquire(file)]);
    expect(a.file.fd).toBe(b.file.fd);
    expect(a.file.stats.size).toBe(5);
    a.release();
    b.release();
    const c = await cache.acquire(file);
    expect(c.file.fd).toBe(a.file.fd);
    c.release();
  });

  test('a descriptor pushed out while being read is closed only after its last reader is done', async () => {
    const cache = new OpenFileCache({ maxEntries: 1, validMs: 60_000 });
    const first = tempFile('first');
    const reading = await cache.acquire(first);
    const other = await cache.acquire(tempFile('other')); // pushes `first` out of the cache
    expect(isOpen(reading.file.fd)).toBe(true);
    expect(readAll(reading.file.fd, 5)).toBe('first');
    reading.release();
    // Closed on the thread pool: wait for it, but never longer than a second.
    await expect.poll(() => isOpen(reading.file.fd), { timeout: 1_000, interval: 5 }).toBe(false);
    other.release();
  });

  test('a file replaced under its name is opened again once the entry is no longer trusted', async () => {
    const cache = new OpenFileCache({ maxEntries: 10, validMs: 30 });
    const file = tempFile('old');
    const before = await cache.acquire(file);
    before.release();
    writeFileSync(`${file}.tmp`, 'newer');
    renameSync(`${file}.tmp`, file);
    await new Promise((resolve) => setTimeout(resolve, 60));
    const after = await cache.acquire(file);
    expect(after.file.stats.size).toBe(5);
    expect(readAll(after.file.fd, 5)).toBe('newer');
    after.release();
  });

  test('a missing file is an ENOENT error and nothing is kept', async () => {
    const cache = new OpenFileCache({ maxEntries: 10, validMs: 60_000 });
    await expect(cache.acquire('/nonexistent/segment.m4s')).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
