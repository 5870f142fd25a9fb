import { getEnv } from '../../env';
import { getLogger } from '../../log';
import { isStoredFile, objectKeyOf, sourceFilePath } from '../../storage/asset-files';
import { nodeRuntime } from '../../runtime/node-runtime';
import type { S3ObjectStore } from '../../storage/object-store';
import { copyFromBucket, shareFile, sharedStore, whenAssetTransfersSettled } from '../storage/shared-storage';

// Where readers of an asset's source (segment and audio encodes, images) find it. An asset can be
// ready while its source is still downloading; then readers get a loopback URL that serves the
// bytes as they arrive. After a restart the download resumes in the ingest job, so a reader that
// finds neither waits for one of them to appear.
//
// With S3 storage a node that has not got the source reads it from the bucket: ffmpeg gets a
// presigned URL at once (it reads HTTP with Range, so a segment's encode fetches only the bytes it
// decodes), and the whole file is copied to DATA_DIR behind it for the encodes that follow.

const SOURCE_WAIT_MS = 60_000;
const POLL_MS = 100;
// Every poll of the bucket is a request; a source appears there once, when its ingest uploads it.
const BUCKET_POLL_MS = 1_000;
// Longer than the longest encode that reads a source (the audio track: 6 h).
const PRESIGNED_SOURCE_SECONDS = 12 * 60 * 60;

declare module '../../runtime/node-runtime' {
  interface NodeRuntime {
    /** The loopback URL of each source still downloading on this node, by asset ID. */
    downloadingSources: Map<string, string>;
  }
}

export const createDownloadingSources = (): Map<string, string> => new Map();

const downloadingSources = (): Map<string, string> => nodeRuntime().downloadingSources;

/** Readers of `assetId` use `url` until the returned function is called. */
export const registerDownloadingSource = (assetId: string, url: string): (() => void) => {
  downloadingSources().set(assetId, url);
  return () => {
    if (downloadingSources().get(assetId) === url) downloadingSources().delete(assetId);
  };
};

export class SourceUnavailableError extends Error {
  constructor(assetId: string) {
    super(`the source of asset ${assetId} is not available (its download has not resumed)`);
    this.name = 'SourceUnavailableError';
  }
}

/** A path or URL ffmpeg can read the source from. */
export const sourceInput = async (assetId: string): Promise<string> => {
  const stored = sourceFilePath(getEnv().dataDir, assetId);
  const deadline = Date.now() + SOURCE_WAIT_MS;
  const store = sharedStore();
  for (;;) {
    if (await isStoredFile(stored)) return stored;
    const downloading = downloadingSources().get(assetId);
    if (downloading) return downloading;
    const inBucket = store ? await bucketSourceUrl(store, stored) : null;
    if (inBucket) return inBucket;
    if (Date.now() > deadline) throw new SourceUnavailableError(assetId);
    await new Promise((resolve) => setTimeout(resolve, store ? BUCKET_POLL_MS : POLL_MS));
  }
};

const bucketSourceUrl = async (store: S3ObjectStore, stored: string): Promise<string | null> => {
  const key = objectKeyOf(getEnv().dataDir, stored);
  if ((await store.stat(key)) === null) return null;
  copyFromBucket(store, stored).catch((error: unknown) => getLogger().warn({ err: error, key }, 'copying a source from the bucket failed'));
  return store.presignedGetUrl(key, PRESIGNED_SOURCE_SECONDS);
};

/** Whether the asset's source is stored: on this node, or (S3) in the bucket. */
export const isSourceStored = async (assetId: string): Promise<boolean> => {
  const stored = sourceFilePath(getEnv().dataDir, assetId);
  if (await isStoredFile(stored)) return true;
  const store = sharedStore();
  return store !== null && (await store.stat(objectKeyOf(getEnv().dataDir, stored))) !== null;
};

/**
 * With S3 storage, uploads the complete source from this node's disk unless the bucket has it;
 * resolves once it is there for every node. A no-op with local disk.
 */
export const shareSource = async (assetId: string): Promise<void> => {
  const store = sharedStore();
  if (store === null) return;
  const stored = sourceFilePath(getEnv().dataDir, assetId);
  // A direct upload's bytes may be on their way to the bucket already (see share-uploaded-file.ts).
  await whenAssetTransfersSettled(assetId);
  if (!(await isStoredFile(stored)) || (await store.stat(objectKeyOf(getEnv().dataDir, stored))) !== null) return;
  await shareFile(stored);
};
