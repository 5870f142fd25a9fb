import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HotFileBodies } from './hot-file-bodies';

let dir: string;
const fds: number[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'kf-bodies-'));
});
afterEach(() => {
  for (const fd of fds.splice(0)) closeSync(fd);
  rmSync(dir, { recursive: true, force: true });
});

const file = (name: string, bytes: Buffer) => {
  const filePath = path.join(dir, name);
  writeFileSync(filePath, bytes);
  const fd = openSync(filePath, 'r');
  fds.push(fd);
  return { filePath, fd, size: bytes.length };
};

describe('HotFileBodies', () => {
  it('reads a file once, for every concurrent asker, and answers later ones from memory', async () => {
    const bodies = new HotFileBodies({ maxBytes: 1024, maxFileBytes: 512 });
    const { filePath, fd, size } = file('a.m4s', Buffer.from('0123456789'));
    const [first, second] = await Promise.all([bodies.body(filePath, fd, size), bodies.body(filePath, fd, size)]);
    expect(first.toString()).toBe('0123456789');
    expect(second).toBe(first);
    // From memory: the descriptor is not read again (a closed one would fail).
    closeSync(fds.pop()!);
    expect((await bodies.body(filePath, fd, size)).toString()).toBe('0123456789');
  });

  it('keeps within its byte cap, least recently used out, and holds no file above the per-file cap', async () => {
    const bodies = new HotFileBodies({ maxBytes: 25, maxFileBytes: 12 });
    expect(bodies.holds(13)).toBe(false);
    expect(bodies.holds(12)).toBe(true);
    const a = file('a', Buffer.alloc(10, 1));
    const b = file('b', Buffer.alloc(10, 2));
    const c = file('c', Buffer.alloc(10, 3));
    await bodies.body(a.filePath, a.fd, a.size);
    await bodies.body(b.filePath, b.fd, b.size);
    await bodies.body(c.filePath, c.fd, c.size);
    // `a` was pushed out: reading it again needs its descriptor.
    closeSync(fds.shift()!);
    await expect(bodies.body(a.filePath, a.fd, a.size)).rejects.toThrow();
    bodies.forget(c.filePath);
    closeSync(fds.pop()!);
    await expect(bodies.body(c.filePath, c.fd, c.size)).rejects.toThrow();
  });

  it('refuses a file shorter than its expected size rather than send made-up bytes', async () => {
    const bodies = new HotFileBodies({ maxBytes: 1024, maxFileBytes: 512 });
    const { filePath, fd } = file('short', Buffer.from('abc'));
    await expect(bodies.body(filePath, fd, 10)).rejects.toThrow('file ended before its expected size');
  });
});
