import { LRUCache } from 'lru-cache';
import type { Representation } from '../serving/response-plan';
import type { EdgeForget } from './edge-protocol';

// A playback worker's copy of answers the app marked as the same for every public request: public
// playlists answered from memory (their bytes) and stored files of public playback IDs (their
// path and validators; the bytes stay on disk). Keyed by request URL and answered without asking
// the app. An entry goes when the app says so (deleted asset or playback ID), after a short
// lifetime (so nothing the app was not told about outlives a player's own max-age of 10 s), when
// its file is gone, or when the cache is full. Multivariant playlists are answered only while the
// app says the encoders are not steering viewers (it then picks the rungs for each request).

type Tag = { playbackId: string; assetId: string };

export type CachedPlaylist = Tag & {
  kind: 'multivariant' | 'rendition';
  /** Flat [name, value, …] list, without Content-Length. */
  headers: string[];
  body: Buffer;
  etag: string | undefined;
};

export type CachedFile = Tag & {
  kind: 'file';
  filePath: string;
  /** Flat [name, value, …] list, without Content-Length or Content-Range. */
  headers: string[];
  representation: Representation;
};

export type CachedAnswer = CachedPlaylist | CachedFile;

const ENTRY_OVERHEAD_BYTES = 512;

export class WorkerAnswerCache {
  private readonly entries: LRUCache<string, CachedAnswer>;
  // Bumped by every forget, so an answer fetched from the app before a forget is not kept after it.
  private generation = 0;
  private multivariantsAllowed = false;

  constructor({ maxBytes, ttlMs }: { maxBytes: number; ttlMs: number }) {
    this.entries = new LRUCache<string, CachedAnswer>({
      maxSize: maxBytes,
      sizeCalculation: (entry) => (entry.kind === 'file' ? entry.filePath.length : entry.body.length) + ENTRY_OVERHEAD_BYTES,
      ttl: ttlMs,
      ttlAutopurge: false,
    });
  }

  get(url: string): CachedAnswer | undefined {
    const entry = this.entries.get(url);
    if (entry?.kind === 'multivariant' && !this.multivariantsAllowed) return undefined;
    return entry;
  }

  /** Taken before asking the app; pass it to `store` with the answer. */
  currentGeneration(): number {
    return this.generation;
  }

  /** Keeps an answer unless a forget arrived since `generation` was taken. */
  store(url: string, entry: CachedAnswer, generation: number): boolean {
    if (generation !== this.generation) return false;
    this.entries.set(url, entry);
    return true;
  }

  /** Drops one entry (its file turned out to be gone). */
  drop(url: string): void {
    this.entries.delete(url);
  }

  /** Drops every entry of the playback ID or asset; returns what was dropped. */
  forget(what: EdgeForget): CachedAnswer[] {
    this.generation++;
    const matches = 'playbackId' in what ? (entry: CachedAnswer) => entry.playbackId === what.playbackId : (entry: CachedAnswer) => entry.assetId === what.assetId;
    const dropped: CachedAnswer[] = [];
    for (const [url, entry] of this.entries.entries()) {
      if (!matches(entry)) continue;
      this.entries.delete(url);
      dropped.push(entry);
    }
    return dropped;
  }

  allowMultivariants(allowed: boolean): void {
    this.multivariantsAllowed = allowed;
  }
}
