import { lstat, readdir, rm } from 'node:fs/promises';
import path from 'node:path';

// Encoded HLS segments can always be produced again from the source, so the disk they take is a
// cache: this index knows which segment files exist and how recently each was served, and deletes
// the least recently used ones when a size cap is exceeded.

export type SegmentCacheOptions = {
  /** null: unbounded, nothing is ever evicted. */
  maxBytes: number | null;
  /** After an evicted file has been deleted. */
  onEvict?: (path: string) => void;
  /** An eviction that failed; the entry has already left the index either way. */
  onError?: (error: unknown, path: string) => void;
};

const isMissing = (error: unknown): boolean => (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';

/**
 * Paths are resolved to absolute paths, so callers may use relative and absolute forms
 * interchangeably; onEvict receives the resolved form.
 */
export class SegmentCache {
  // Maps iterate in insertion order, so re-inserting an entry on every use keeps the least
  // recently used one first.
  private readonly entries = new Map<string, number>();
  private total = 0;
  private deletions: Promise<void> = Promise.resolve();
  private readonly maxBytes: number | null;

  constructor(private readonly options: SegmentCacheOptions) {
    const { maxBytes } = options;
    if (maxBytes !== null && !(Number.isFinite(maxBytes) && maxBytes >= 0)) {
      throw new RangeError(`SegmentCache: maxBytes must be a non-negative number or null, got ${maxBytes}`);
    }
    this.maxBytes = maxBytes;
  }

  /** A segment file was published: it becomes the most recently used entry and is never the one evicted for it. */
  record(filePath: string, bytes: number): void {
    if (!(Number.isFinite(bytes) && bytes >= 0)) throw new RangeError(`SegmentCache: invalid size ${bytes} for ${filePath}`);
    const key = path.resolve(filePath);
    this.remove(key);
    this.entries.set(key, bytes);
    this.total += bytes;
    this.enforceCap(key);
  }

  /** A segment was served. Returns whether it is in the index. */
  touch(filePath: string): boolean {
    const key = path.resolve(filePath);
    const bytes = this.entries.get(key);
    if (bytes === undefined) return false;
    this.entries.delete(key);
    this.entries.set(key, bytes);
    return true;
  }

  /** The file was deleted by someone else; nothing is deleted here. */
  forget(filePath: string): boolean {
    return this.remove(path.resolve(filePath));
  }

  /** Everything below a directory was deleted (an asset). Returns how many entries were dropped. */
  forgetUnder(dirPrefix: string): number {
    const dir = path.resolve(dirPrefix);
    // Match whole path components, so that forgetting "assets/ab" keeps "assets/abc".
    const below = dir.endsWith(path.sep) ? dir : dir + path.sep;
    let dropped = 0;
    for (const key of [...this.entries.keys()]) {
      if ((key === dir || key.startsWith(below)) && this.remove(key)) dropped++;
    }
    return dropped;
  }

  has(filePath: string): boolean {
    return this.entries.has(path.resolve(filePath));
  }

  totalBytes(): number {
    return this.total;
  }

  entryCount(): number {
    return this.entries.size;
  }

  /** Resolves once every eviction queued so far, and any queued meanwhile, has finished. */
  async whenIdle(): Promise<void> {
    let seen: Promise<void> | undefined;
    while (seen !== this.deletions) {
      seen = this.deletions;
      await seen;
    }
  }

  /**
   * Indexes the cacheable files below `rootDir` (at server start), oldest modification time as
   * least recently used, then evicts down to the cap and waits for those deletions. Entries
   * recorded before or during the walk count as more recent than anything found on disk.
   * `isCacheable` receives paths relative to `rootDir` with "/" separators. Returns the number of
   * files found.
   */
  async rebuildFromDisk(rootDir: string, isCacheable: (relativePath: string) => boolean): Promise<number> {
    const found: Array<{ key: string; bytes: number; mtimeMs: number }> = [];
    const visit = async (dir: string, relativeDir: string): Promise<void> => {
      let dirents;
      try {
        dirents = await readdir(dir, { withFileTypes: true });
      } catch (error) {
        if (isMissing(error)) return; // No cache yet, or deleted while walking.
        throw error;
      }
      for (const dirent of dirents) {
        const relativePath = relativeDir ? `${relativeDir}/${dirent.name}` : dirent.name;
        const fullPath = path.join(dir, dirent.name);
        if (dirent.isDirectory()) {
          await visit(fullPath, relativePath);
        } else if (dirent.isFile() && isCacheable(relativePath)) {
          try {
            const stats = await lstat(fullPath);
            found.push({ key: fullPath, bytes: stats.size, mtimeMs: stats.mtimeMs });
          } catch (error) {
            if (!isMissing(error)) throw error;
          }
        }
      }
    };
    await visit(path.resolve(rootDir), '');

    found.sort((a, b) => a.mtimeMs - b.mtimeMs || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const recent = [...this.entries];
    this.entries.clear();
    for (const { key, bytes } of found) this.entries.set(key, bytes);
    for (const [key] of recent) this.entries.delete(key);
    for (const [key, bytes] of recent) this.entries.set(key, bytes);
    this.total = 0;
    for (const bytes of this.entries.values()) this.total += bytes;

    this.enforceCap(undefined);
    await this.whenIdle();
    return found.length;
  }

  private remove(key: string): boolean {
    const bytes = this.entries.get(key);
    if (bytes === undefined) return false;
    this.entries.delete(key);
    this.total -= bytes;
    return true;
  }

  private enforceCap(keep: string | undefined): void {
    if (this.maxBytes === null) return;
    // The index gives up victims at once, so the total is right immediately; only the deletions
    // themselves wait their turn.
    for (const key of [...this.entries.keys()]) {
      if (this.total <= this.maxBytes) break;
      if (key === keep) continue;
      this.remove(key);
      // A throwing onError must not break the chain, or no later eviction would run.
      this.deletions = this.deletions.then(() => this.deleteFile(key)).catch(() => undefined);
    }
  }

  private async deleteFile(key: string): Promise<void> {
    // Published again since it was chosen: the file on disk now is the new copy.
    if (this.entries.has(key)) return;
    try {
      await rm(key, { force: true });
    } catch (error) {
      this.options.onError?.(error, key);
      return;
    }
    try {
      this.options.onEvict?.(key);
    } catch (error) {
      this.options.onError?.(error, key);
    }
  }
}
