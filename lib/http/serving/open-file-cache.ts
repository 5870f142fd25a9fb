import { close, fstat, open, type Stats } from 'node:fs';
import { promisify } from 'node:util';
import { LRUCache } from 'lru-cache';

// Open descriptors of recently served files, as nginx's open_file_cache keeps them: a request for
// a hot segment then costs only its reads, not an open, a stat and a close on the thread pool.
// Files under DATA_DIR are only ever published whole under a new inode (temp file + rename), so a
// kept descriptor always reads one complete version of its file; an entry is trusted for a few
// seconds and then opened again, so a replaced or deleted file is let go of soon after.
// A descriptor is closed only once no response is reading from it, so its number can never be
// reused under a stream that is still sending.

export type OpenFile = { fd: number; stats: Stats };

type Entry = OpenFile & { readers: number; retired: boolean };

const openFile = promisify(open);
const statFile = promisify(fstat);

const closeQuietly = (fd: number) => close(fd, () => undefined);

export class OpenFileCache {
  private readonly entries: LRUCache<string, Entry>;
  private readonly opening = new Map<string, Promise<Entry>>();

  constructor({ maxEntries, validMs }: { maxEntries: number; validMs: number }) {
    this.entries = new LRUCache<string, Entry>({
      max: maxEntries,
      ttl: validMs,
      dispose: (entry) => {
        entry.retired = true;
        if (entry.readers === 0) closeQuietly(entry.fd);
      },
    });
  }

  /** Opens (or reuses) the file; the caller must call `release` exactly once when done reading. */
  async acquire(filePath: string): Promise<{ file: OpenFile; release: () => void }> {
    const entry = this.entries.get(filePath) ?? (await this.load(filePath));
    // Pushed out of the cache (and so perhaps closed) while we waited for it to open: start over.
    if (entry.retired) return this.acquire(filePath);
    entry.readers++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      entry.readers--;
      if (entry.retired && entry.readers === 0) closeQuietly(entry.fd);
    };
    return { file: entry, release };
  }

  private load(filePath: string): Promise<Entry> {
    const pending = this.opening.get(filePath);
    if (pending) return pending;
    const loading = (async () => {
      const fd = await openFile(filePath, 'r');
      try {
        const entry: Entry = { fd, stats: await statFile(fd), readers: 0, retired: false };
        this.entries.set(filePath, entry);
        return entry;
      } catch (error) {
        closeQuietly(fd);
        throw error;
      }
    })().finally(() => this.opening.delete(filePath));
    this.opening.set(filePath, loading);
    return loading;
  }
}
