import type { StorageConfig } from '../env';
import { createLocalDiskStore } from './local-disk-store';
import type { ObjectStore } from './object-store';
import { createS3Store } from './s3-store';

// The one place that picks the storage driver: S3 exactly when a bucket is configured.
export const createObjectStore = ({ dataDir, storage }: { dataDir: string; storage: StorageConfig }): ObjectStore => {
  if (storage.driver === 'local-disk') return createLocalDiskStore({ root: dataDir });
  const { driver: _driver, publicUrl: _publicUrl, ...options } = storage;
  return createS3Store(options);
};
