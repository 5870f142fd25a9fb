import { sharedStore } from './shared-storage';

export type StorageCheck = { ok: boolean; bucket: string; reason?: string };

/**
 * With S3: writes, reads back and deletes a small object, so wrong credentials, a missing bucket
 * or a read-only key show at start-up and in the health check rather than at the first upload.
 * Throws what failed; returns the bucket's name, or null with local disk.
 */
export const verifySharedStorage = async (): Promise<string | null> => {
  const store = sharedStore();
  if (store === null) return null;
  const key = `keyframe-storage-check/${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  await store.put(key, Buffer.from('ok'), { contentType: 'text/plain' });
  const info = await store.stat(key);
  if (info?.size !== 2) throw new Error(`the object written was not read back (${info ? `${info.size} bytes` : 'missing'})`);
  await store.delete(key);
  return store.bucket;
};

/** verifySharedStorage's outcome as the health check reports it; null with local disk. */
export const checkSharedStorage = async (): Promise<StorageCheck | null> => {
  const store = sharedStore();
  if (store === null) return null;
  try {
    await verifySharedStorage();
    return { ok: true, bucket: store.bucket };
  } catch (error) {
    return { ok: false, bucket: store.bucket, reason: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
};
