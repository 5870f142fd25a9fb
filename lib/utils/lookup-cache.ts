import { LRUCache } from 'lru-cache';

// A read-through cache for rows the playback path looks up on every request (playback IDs,
// restrictions, signing keys). Entries are dropped explicitly by the code that changes the row;
// the TTL only bounds how long a change made by another process can go unseen. A lookup that was
// already reading the database when an entry was dropped does not put its (possibly stale) answer
// back: every drop starts a new epoch, and only loads begun in the current epoch are kept.
export class LookupCache<V extends object> {
  private readonly entries: LRUCache<string, V>;
  private epoch = 0;

  constructor({ maxEntries, ttlMs }: { maxEntries: number; ttlMs: number }) {
    this.entries = new LRUCache<string, V>({ max: maxEntries, ttl: ttlMs });
  }

  /** The cached value, or `load()`'s, kept when it is not null and `keep` accepts it. */
  async get(key: string, load: () => Promise<V | null>, keep: (value: V) => boolean = () => true): Promise<V | null> {
    const cached = this.entries.get(key);
    if (cached !== undefined) return cached;
    const epoch = this.epoch;
    const loaded = await load();
    if (loaded !== null && epoch === this.epoch && keep(loaded)) this.entries.set(key, loaded);
    return loaded;
  }

  /** The cached value, without loading: for callers that must not wait. */
  peek(key: string): V | undefined {
    return this.entries.get(key);
  }

  forget(key: string): void {
    this.epoch++;
    this.entries.delete(key);
  }

  forgetWhere(matches: (value: V) => boolean): void {
    this.epoch++;
    for (const [key, value] of this.entries.entries()) if (matches(value)) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
