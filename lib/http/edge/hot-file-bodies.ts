import { read } from 'node:fs';
import { promisify } from 'node:util';
import { LRUCache } from 'lru-cache';

// The bytes of recently served stored files, kept in a playback worker's memory up to a byte cap.
// Node cannot sendfile(2) to a socket, so every answer from disk costs a read on the thread pool
// (a queue hop per request) plus a copy; for the hot segments of a popular asset, answering from
// memory instead measured +40 % requests per second and half the p99 (docs/benchmark.md). A file is
// only ever published whole under its final name and its bytes never change (encodes are
// deterministic), so its path and size identify its bytes.

const readAt = promisify(read);

export class HotFileBodies {
  private readonly bodies: LRUCache<string, Buffer>;
  private readonly loading = new Map<string, Promise<Buffer>>();

  constructor(
    private readonly options: {
      maxBytes: number;
      /** Larger files are always sent from disk. */
      maxFileBytes: number;
    },
  ) {
    this.bodies = new LRUCache<string, Buffer>({ maxSize: Math.max(1, options.maxBytes), sizeCalculation: (body) => Math.max(1, body.length) });
  }

  /** Whether a file of this size is kept in memory at all. */
  holds(size: number): boolean {
    return this.options.maxBytes > 0 && size > 0 && size <= this.options.maxFileBytes && size <= this.options.maxBytes;
  }

  /** The file's bytes, from memory or read whole from the open descriptor (once, however many ask). */
  async body(filePath: string, fd: number, size: number): Promise<Buffer> {
    const key = `${size}:${filePath}`;
    const kept = this.bodies.get(key);
    if (kept) return kept;
    const pending = this.loading.get(key);
    if (pending) return pending;
    const load = this.readWhole(fd, size)
      .then((body) => {
        this.bodies.set(key, body);
        return body;
      })
      .finally(() => this.loading.delete(key));
    this.loading.set(key, load);
    return load;
  }

  /** Drops a file's bytes (its asset was deleted). */
  forget(filePath: string): void {
    for (const key of this.bodies.keys()) {
      if (key.slice(key.indexOf(':') + 1) === filePath) this.bodies.delete(key);
    }
  }

  private async readWhole(fd: number, size: number): Promise<Buffer> {
    const body = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const { bytesRead } = await readAt(fd, body, filled, size - filled, filled);
      if (bytesRead === 0) throw new Error('file ended before its expected size');
      filled += bytesRead;
    }
    return body;
  }
}
