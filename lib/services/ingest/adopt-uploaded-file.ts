import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { getEnv } from '../../env';
import { isStoredFile, objectKeyOf } from '../../storage/asset-files';
import type { S3ObjectStore } from '../../storage/object-store';
import { uploadDataPath, uploadDirectory } from '../../storage/upload-files';
import { copyFromBucket, sharedStore } from '../storage/shared-storage';

// How long an ingest on another node waits for a completed upload's bytes to reach the bucket
// (they are uploaded from the node that received them right after the last byte arrived).
const BUCKET_WAIT_MS = 15 * 60_000;
const BUCKET_POLL_MS = 1_000;

// A direct upload's file becomes the asset's source by a rename (same file system, no copy), so a
// multi-gigabyte upload is ready to probe at once. With S3 storage, a node that did not receive
// the upload copies it from the bucket instead. Returns false if there is no file to adopt.
export const adoptUploadedFile = async ({
  uploadId,
  sourcePath,
  signal,
}: {
  uploadId: string;
  sourcePath: string;
  signal?: AbortSignal;
}): Promise<boolean> => {
  const { dataDir } = getEnv();
  const uploaded = uploadDataPath(dataDir, uploadId);
  if (!(await isStoredFile(uploaded))) {
    const store = sharedStore();
    return store !== null && waitForUploadedFile(store, sourcePath, signal);
  }
  await mkdir(path.dirname(sourcePath), { recursive: true });
  await rename(uploaded, sourcePath);
  await rm(uploadDirectory(dataDir, uploadId), { recursive: true, force: true });
  return true;
};

const waitForUploadedFile = async (store: S3ObjectStore, sourcePath: string, signal?: AbortSignal): Promise<boolean> => {
  const key = objectKeyOf(getEnv().dataDir, sourcePath);
  const deadline = Date.now() + BUCKET_WAIT_MS;
  while ((await store.stat(key)) === null) {
    signal?.throwIfAborted();
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, BUCKET_POLL_MS));
  }
  return copyFromBucket(store, sourcePath);
};
