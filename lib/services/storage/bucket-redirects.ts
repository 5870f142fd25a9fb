import { getEnv } from '../../env';
import { objectKeyOf } from '../../storage/asset-files';
import { isKnownInBucket, markKnownInBucket, sharedStore } from './shared-storage';

// With S3_PUBLIC_URL, players may fetch segments straight from the bucket (or the CDN in front of
// it): the public URL of an object is `<S3_PUBLIC_URL>/<key>`. Only objects known to be in the
// bucket are pointed at, so a player is never sent to one still uploading.

const publicBaseUrl = (): string | null => {
  const { storage } = getEnv();
  return storage.driver === 's3' ? (storage.publicUrl ?? null) : null;
};

/** Whether players may be sent to the bucket's public URL for segments (S3_PUBLIC_URL). */
export const redirectsToBucket = (): boolean => publicBaseUrl() !== null;

/**
 * Where anyone can fetch a file's object (S3_PUBLIC_URL), when this node knows it is in the
 * bucket; null otherwise, and always without S3_PUBLIC_URL. Asks nothing of the bucket.
 */
export const knownPublicUrl = (filePath: string): string | null => {
  const base = publicBaseUrl();
  if (base === null) return null;
  const key = objectKeyOf(getEnv().dataDir, filePath);
  return isKnownInBucket(key) ? `${base}/${key}` : null;
};

/** knownPublicUrl, asking the bucket whether it has the object when this node does not know. */
export const publicUrlInBucket = async (filePath: string): Promise<string | null> => {
  const store = sharedStore();
  const base = publicBaseUrl();
  if (store === null || base === null) return null;
  const known = knownPublicUrl(filePath);
  if (known !== null) return known;
  const key = objectKeyOf(getEnv().dataDir, filePath);
  if ((await store.stat(key)) === null) return null;
  markKnownInBucket(key);
  return `${base}/${key}`;
};
