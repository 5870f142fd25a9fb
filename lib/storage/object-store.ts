import type { Readable } from 'node:stream';

// Everything Keyframe stores (sources, segments, init segments, the audio track, images) is an
// object under a key such as `assets/<id>/hls/540p/3.m4s`: a file under DATA_DIR with the local-disk
// driver, an object in a bucket with the S3 driver. Every write is atomic for readers: an object is
// either absent or complete under its key, never partial.

export type StoredObjectInfo = { size: number; lastModified: Date };

/** Inclusive byte offsets, as in an HTTP Range header. */
export type ByteRange = { start: number; end: number };

/** The bytes to store: in memory, or a local file or a range of it (streamed, never read whole). */
export type ObjectBody = Uint8Array | { file: string; range?: ByteRange };

export type PutOptions = { contentType?: string };

type CommonObjectStore = {
  put(key: string, body: ObjectBody, options?: PutOptions): Promise<void>;
  /** Writes the object to `localPath` (temp file + rename). False when there is no such object. */
  getToFile(key: string, localPath: string): Promise<boolean>;
  stat(key: string): Promise<StoredObjectInfo | null>;
  /** The object's bytes (or a range of them); null when there is no such object. */
  createReadStream(key: string, range?: ByteRange): Promise<Readable | null>;
  /** Deleting a missing object is not an error. */
  delete(key: string): Promise<void>;
  /** The names of the objects directly in a folder (`prefix` ends with "/"), not those in folders below it. */
  listFolder(prefix: string): Promise<string[]>;
  /** Deletes every object whose key starts with `prefix`, which names a folder (ends with "/"). */
  deletePrefix(prefix: string): Promise<void>;
};

export type LocalDiskObjectStore = CommonObjectStore & {
  kind: 'local-disk';
  /** Where the object's file is (whether or not it exists). */
  pathOf(key: string): string;
};

export type S3ObjectStore = CommonObjectStore & {
  kind: 's3';
  bucket: string;
  /** A URL anyone holding it can GET (with Range) until it expires. */
  presignedGetUrl(key: string, expiresInSeconds: number): Promise<string>;
  /** Releases the HTTP connections. */
  close(): void;
};

export type ObjectStore = LocalDiskObjectStore | S3ObjectStore;

const KEY_SEGMENT = /^[A-Za-z0-9._-]+$/;

/** Keys are relative, "/"-separated, without empty, "." or ".." segments: the same on disk and in a bucket. */
export const assertObjectKey = (key: string): void => {
  const segments = key.split('/');
  if (key.length === 0 || key.length > 1024 || segments.some((segment) => !KEY_SEGMENT.test(segment) || segment === '.' || segment === '..')) {
    throw new RangeError(`invalid object key "${key}"`);
  }
};

export const assertObjectPrefix = (prefix: string): void => {
  if (!prefix.endsWith('/')) throw new RangeError(`object prefix "${prefix}" must end with "/"`);
  assertObjectKey(prefix.slice(0, -1));
};

export const isBufferBody = (body: ObjectBody): body is Uint8Array => body instanceof Uint8Array;
