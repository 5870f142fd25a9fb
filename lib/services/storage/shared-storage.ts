import path from 'node:path';
import { LRUCache } from 'lru-cache';
import { DependencyTimeoutError } from '../../errors/dependency-unavailable';
import { getEnv } from '../../env';
import { getLogger } from '../../log';
import { lazyParts } from '../../runtime/lazy-parts';
import { nodeRuntime } from '../../runtime/node-runtime';
import { assetIdOfObjectKey, assetObjectPrefix, isStoredFile, objectKeyOf } from '../../storage/asset-files';
import { createObjectStore } from '../../storage/create-object-store';
import type { ObjectStore, S3ObjectStore } from '../../storage/object-store';
import { SingleFlight } from '../../utils/single-flight';

// Keeps this node's files (DATA_DIR) and the bucket in step when storage is S3. Code keeps working
// with local paths, as ffmpeg and the playback host need: what a node produces is published on its
// disk first (served from there at once) and uploaded to the bucket behind it (write-through);
// what a node lacks is looked for in the bucket and copied to its disk before anything is encoded.
// With the local-disk driver DATA_DIR is the storage and every helper here is a no-op that answers
// without awaiting anything.

type SharedStorage = {
  objectStore: ObjectStore;
  /** Downloads from the bucket in progress, by file. */
  fetches: SingleFlight<boolean>;
  /**
   * Uploads and downloads not finished yet, per asset: deleting an asset waits for them, so no
   * upload lands in the bucket after its objects were removed and no download on disk after its
   * folder was.
   */
  pendingTransfers: Map<string, Set<Promise<unknown>>>;
  /** Assets deleted by this node recently: what their late encodes publish is not uploaded. */
  deletedAssets: LRUCache<string, true>;
  /** Keys this node uploaded or downloaded: known to be in the bucket without asking it. */
  knownInBucket: LRUCache<string, true>;
  /** Completion markers the bucket did not have a moment ago (see isMarkerStored). */
  markerMisses: LRUCache<string, true>;
  /** Buckets that just failed or hung on a read fetchFromBucket could do without: skipped until then (epoch ms). */
  skipBucketUntil: WeakMap<S3ObjectStore, number>;
};

declare module '../../runtime/node-runtime' {
  interface NodeRuntime {
    sharedStorage: SharedStorage;
  }
}

// Markers (a rendition is complete) are asked for on every playlist until they exist; a miss in
// the bucket is believed for this long before the bucket is asked again.
const MARKER_MISS_TTL_MS = 5_000;

// A stalled endpoint holds a request for the SDK's idle timeout (20 s) on each of three attempts.
// A read the node can do without (it can encode the segment, render the image) waits this long,
// then counts as a miss, and for the next SKIP_FAILING_BUCKET_MS such reads do not ask a bucket
// that just failed or hung: a viewer is served by an encode instead of waiting out the outage.
// The late download is not abandoned; it lands on disk (or fails) behind the answer.
const OPTIONAL_READ_DEADLINE_MS = 4_000;
const SKIP_FAILING_BUCKET_MS = 10_000;
// A read the node cannot do without (a text track, a static rendition) gives up after this long
// with a storage outage (a request gets 503 + Retry-After), not after the SDK's three 20 s attempts.
const REQUIRED_READ_DEADLINE_MS = 10_000;

/** `work`'s outcome, or 'late' once `ms` have passed (work goes on; its failure is the caller's to catch). */
const orLate = async <T>(work: Promise<T>, ms: number): Promise<T | 'late'> => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
};

// Each piece is made on first use: the object store when a file is first stored or looked for.
export const createSharedStorage = (): SharedStorage =>
  lazyParts<SharedStorage>({
    objectStore: () => createObjectStore(getEnv()),
    fetches: () => new SingleFlight<boolean>(),
    pendingTransfers: () => new Map<string, Set<Promise<unknown>>>(),
    deletedAssets: () => new LRUCache<string, true>({ max: 100_000, ttl: 60 * 60_000 }),
    knownInBucket: () => new LRUCache<string, true>({ max: 200_000 }),
    markerMisses: () => new LRUCache<string, true>({ max: 50_000, ttl: MARKER_MISS_TTL_MS }),
    skipBucketUntil: () => new WeakMap<S3ObjectStore, number>(),
  });

const state = (): SharedStorage => nodeRuntime().sharedStorage;

export const objectStore = (): ObjectStore => state().objectStore;

/** The bucket when storage is S3; null when DATA_DIR is the storage. */
export const sharedStore = (): S3ObjectStore | null => {
  const store = objectStore();
  return store.kind === 's3' ? store : null;
};

const keyOf = (filePath: string): string => objectKeyOf(getEnv().dataDir, filePath);

const CONTENT_TYPES: Record<string, string> = {
  '.m4s': 'video/mp4',
  '.mp4': 'video/mp4',
  '.json': 'application/json',
  '.jpg': 'image/jpeg',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
  '.vtt': 'text/vtt; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};
const contentTypeOf = (filePath: string): string => CONTENT_TYPES[path.extname(filePath)] ?? 'application/octet-stream';

const fetches = () => state().fetches;
const pendingTransfers = () => state().pendingTransfers;
const deletedAssets = () => state().deletedAssets;
const knownInBucket = () => state().knownInBucket;

const trackTransfer = <T>(assetId: string, transfer: Promise<T>): Promise<T> => {
  const pending = pendingTransfers();
  const forAsset = pending.get(assetId) ?? new Set<Promise<unknown>>();
  pending.set(assetId, forAsset);
  const tracked: Promise<T> = transfer.finally(() => {
    forAsset.delete(tracked);
    if (forAsset.size === 0 && pending.get(assetId) === forAsset) pending.delete(assetId);
  });
  forAsset.add(tracked);
  return tracked;
};

/**
 * Copies a file's object from the bucket to its place in DATA_DIR (atomically: readers see it
 * whole or not at all). Concurrent calls for one file share one download. False when the bucket
 * does not have it either. S3 only.
 */
export const copyFromBucket = (store: S3ObjectStore, filePath: string): Promise<boolean> =>
  fetches().run(filePath, () => {
    const key = keyOf(filePath);
    const assetId = assetIdOfObjectKey(key);
    if (assetId !== null && deletedAssets().has(assetId)) return Promise.resolve(false);
    const fetch = (async () => {
      if (await isStoredFile(filePath)) return true;
      const found = await store.getToFile(key, filePath);
      if (found) knownInBucket().set(key, true);
      return found;
    })();
    return assetId === null ? fetch : trackTransfer(assetId, fetch);
  });

/**
 * copyFromBucket for files this node can produce itself (segments, images, markers): a bucket
 * that cannot be read right now, or does not answer within OPTIONAL_READ_DEADLINE_MS, counts as
 * not having the file (logged), so playback goes on by encoding instead of failing or waiting.
 */
export const fetchFromBucket = async (store: S3ObjectStore, filePath: string): Promise<boolean> => {
  const skipped = state().skipBucketUntil;
  if (Date.now() < (skipped.get(store) ?? 0)) return false;
  const skipForAWhile = (error: unknown, what: string) => {
    if (Date.now() >= (skipped.get(store) ?? 0)) {
      getLogger().warn({ err: error, filePath, skipForMs: SKIP_FAILING_BUCKET_MS }, `${what}; producing files here without asking it for a while`);
    }
    skipped.set(store, Date.now() + SKIP_FAILING_BUCKET_MS);
    return false;
  };
  const outcome = await orLate(
    copyFromBucket(store, filePath).catch((error: unknown) => skipForAWhile(error, 'reading from the bucket failed')),
    OPTIONAL_READ_DEADLINE_MS,
  );
  return outcome === 'late' ? skipForAWhile(null, `the bucket did not answer within ${OPTIONAL_READ_DEADLINE_MS} ms`) : outcome;
};

/**
 * Whether the file is on this node's disk or, with S3, in the bucket (then copied here first). A
 * bucket that fails, or does not answer within REQUIRED_READ_DEADLINE_MS, throws a storage outage.
 */
export const isStoredHereOrShared = async (filePath: string): Promise<boolean> => {
  if (await isStoredFile(filePath)) return true;
  const store = sharedStore();
  if (store === null) return false;
  const copy = copyFromBucket(store, filePath);
  const outcome = await orLate(copy, REQUIRED_READ_DEADLINE_MS);
  if (outcome !== 'late') return outcome;
  copy.catch((error: unknown) => getLogger().warn({ err: error, filePath }, 'a late read from the bucket failed'));
  throw new DependencyTimeoutError('storage', `the bucket did not answer within ${REQUIRED_READ_DEADLINE_MS} ms`);
};

/**
 * isStoredHereOrShared for files this node can produce itself (segments, images, audio): a bucket
 * it cannot read right now counts as not having the file (see fetchFromBucket).
 */
export const isStoredHereOrInReachableBucket = async (filePath: string): Promise<boolean> => {
  if (await isStoredFile(filePath)) return true;
  const store = sharedStore();
  return store !== null && fetchFromBucket(store, filePath);
};

const markerMisses = () => state().markerMisses;

/** isStoredHereOrShared for files asked for repeatedly before they exist (completion markers). */
export const isMarkerStored = async (filePath: string): Promise<boolean> => {
  if (await isStoredFile(filePath)) return true;
  const store = sharedStore();
  if (store === null || markerMisses().has(filePath)) return false;
  const found = await fetchFromBucket(store, filePath);
  if (!found) markerMisses().set(filePath, true);
  return found;
};


/**
 * Uploads a file just published in DATA_DIR (its bytes, when the caller still has them, else the
 * file). Resolves once the bucket has it: from then on every node can serve it. Resolves at once
 * when DATA_DIR is the storage.
 */
export const shareFile = (filePath: string, bytes?: Uint8Array): Promise<void> => shareFileAs(filePath, filePath, bytes);

/** shareFile for a local file whose place in DATA_DIR (and so its key) is `storedPath`, not where it is now. */
export const shareFileAs = (filePath: string, storedPath: string, bytes?: Uint8Array): Promise<void> => {
  const store = sharedStore();
  if (store === null) return Promise.resolve();
  const key = keyOf(storedPath);
  const assetId = assetIdOfObjectKey(key);
  if (assetId !== null && deletedAssets().has(assetId)) return Promise.resolve();
  const upload = store.put(key, bytes ?? { file: filePath }, { contentType: contentTypeOf(storedPath) }).then(() => {
    knownInBucket().set(key, true);
  });
  return assetId === null ? upload : trackTransfer(assetId, upload);
};

/**
 * shareFile without waiting: a failed upload is logged, and only costs another node an encode of
 * its own. For files any node can produce again (segments, init segments, images).
 */
export const shareInBackground = (filePath: string, bytes?: Uint8Array): void => {
  if (sharedStore() === null) return;
  shareFile(filePath, bytes).catch((error: unknown) => getLogger().warn({ err: error, filePath }, 'upload to the bucket failed'));
};

/** Resolves when every transfer of the asset started so far has settled (succeeded or not). */
export const whenAssetTransfersSettled = async (assetId: string): Promise<void> => {
  for (;;) {
    const forAsset = pendingTransfers().get(assetId);
    if (!forAsset || forAsset.size === 0) return;
    await Promise.allSettled([...forAsset]);
  }
};

/**
 * Removes an asset's objects from the bucket (no-op with local disk), after its transfers in
 * flight; none starts afterwards. Called before its folder in DATA_DIR is removed. The asset's
 * rows are gone by then, so a bucket that refuses is logged (with the prefix left behind) rather
 * than failing the deletion.
 */
export const deleteSharedAsset = async (assetId: string): Promise<void> => {
  const store = sharedStore();
  if (store === null) return;
  deletedAssets().set(assetId, true);
  await whenAssetTransfersSettled(assetId);
  const prefix = assetObjectPrefix(assetId);
  for (const key of [...knownInBucket().keys()]) if (key.startsWith(prefix)) knownInBucket().delete(key);
  await store.deletePrefix(prefix).catch((error: unknown) => getLogger().error({ err: error, prefix }, 'deleting an asset from the bucket failed'));
};

/** Whether this node uploaded or downloaded the object: known to be in the bucket without asking it. */
export const isKnownInBucket = (key: string): boolean => knownInBucket().has(key);

export const markKnownInBucket = (key: string): void => {
  knownInBucket().set(key, true);
};

/** Removes every object under a prefix from the bucket (no-op with local disk), e.g. a deleted track's files. */
export const deleteSharedPrefix = async (prefix: string): Promise<void> => {
  const store = sharedStore();
  if (store === null) return;
  for (const key of [...knownInBucket().keys()]) if (key.startsWith(prefix)) knownInBucket().delete(key);
  await store.deletePrefix(prefix).catch((error: unknown) => getLogger().error({ err: error, prefix }, 'deleting from the bucket failed'));
};

/** Removes one file from the bucket (no-op with local disk), e.g. a static rendition deleted through the API. */
export const unshareFile = async (filePath: string): Promise<void> => {
  const store = sharedStore();
  if (store === null) return;
  const key = objectKeyOf(getEnv().dataDir, filePath);
  knownInBucket().delete(key);
  await store.delete(key);
};
