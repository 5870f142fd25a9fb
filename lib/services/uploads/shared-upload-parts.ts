import { mkdir, open, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { retryThroughOutage } from '../../errors/retry-through-outage';
import { getLogger } from '../../log';
import { objectKeyOf, sourceFilePath } from '../../storage/asset-files';
import { receivedByteCount, uploadDirectory } from '../../storage/upload-files';
import { sharedStore } from '../storage/shared-storage';
import { partsToAppend, parsePartName, type UploadPart } from './upload-parts';

// With S3 storage the chunks of one direct upload may reach different nodes (a round-robin proxy
// in front of them). Each node appends what it receives to its own copy of the upload's file, as
// with local disk, and also stores every chunk it appended as an object `uploads/<id>/parts/<first>-<last>`
// before answering it. A node asked to continue past the end of its own copy first appends, from
// the bucket, the parts it lacks. Clients send a chunk only once the previous one was answered
// (UpChunk, GCS-style resumable clients), so what a node needs is in the bucket by then. With the
// local-disk driver DATA_DIR is shared by every node and all of this is a no-op.

const partsPrefix = (uploadId: string): string => `uploads/${uploadId}/parts/`;

// The client waits for the chunk's answer meanwhile. UpChunk gives up after 5 tries 1 s apart, so
// a bucket that answers 503 for longer than that would lose the upload were the 503 passed on at
// once; held this long, a restart or a throttling burst of the bucket passes inside one request.
const BUCKET_OUTAGE_WAIT_MS = 20_000;

/**
 * Appends to `file` what other nodes received of the upload beyond it, when this node's copy holds
 * fewer than `needed` bytes (a chunk's first byte; the total for a status query); returns the bytes
 * now held. A copy that already reaches the chunk needs nothing from the bucket, so a chunk that
 * reaches the node that took the previous one does not wait for a bucket that is down.
 */
export const catchUpFromSharedParts = async (uploadId: string, file: string, needed: number): Promise<number> => {
  const held = await receivedByteCount(file);
  const store = sharedStore();
  if (!store || held >= needed) return held;
  const listed = await retryThroughOutage(() => store.listFolder(partsPrefix(uploadId)), { windowMs: BUCKET_OUTAGE_WAIT_MS, only: ['storage'] });
  const parts = listed.map(parsePartName).filter((part): part is UploadPart => part !== null);
  const pieces = partsToAppend(parts, held);
  if (pieces.length === 0) return held;
  await mkdir(path.dirname(file), { recursive: true });
  const handle = await open(file, 'a');
  try {
    for (const piece of pieces) {
      const stream = await store.createReadStream(`${partsPrefix(uploadId)}${piece.name}`, piece.range);
      // Removed meanwhile: the upload ended on another node, which the caller finds in its record.
      if (!stream) break;
      // Bytes at a given offset are the same in every copy, so a prefix cut short is still valid.
      for await (const chunk of stream) await handle.write(chunk as Buffer);
    }
  } finally {
    await handle.datasync().catch(() => undefined);
    await handle.close();
  }
  return receivedByteCount(file);
};

/** Stores bytes [first, last] of this node's copy as a part other nodes can continue from. */
export const shareAppendedPart = async (uploadId: string, file: string, first: number, last: number): Promise<void> => {
  const store = sharedStore();
  if (!store || last < first) return;
  await retryThroughOutage(() => store.put(`${partsPrefix(uploadId)}${first}-${last}`, { file, range: { start: first, end: last } }), {
    windowMs: BUCKET_OUTAGE_WAIT_MS,
    only: ['storage'],
  });
};

export const dropLocalUploadCopy = (uploadId: string): Promise<void> =>
  rm(uploadDirectory(getEnv().dataDir, uploadId), { recursive: true, force: true });

/** Removes the upload's bytes: this node's copy and, with S3, the shared parts. */
export const dropUploadBytes = async (uploadId: string): Promise<void> => {
  await dropLocalUploadCopy(uploadId);
  await sharedStore()?.deletePrefix(`uploads/${uploadId}/`);
};

/** The parts are not needed once the upload's bytes are complete on one node. */
export const dropSharedPartsInBackground = (uploadId: string): void => {
  sharedStore()
    ?.deletePrefix(partsPrefix(uploadId))
    .catch((error: unknown) => getLogger().warn({ err: error, uploadId }, 'removing the shared parts of a direct upload failed'));
};

// Other nodes' copies of an upload that ended elsewhere are left behind on their disks; they are
// removed once nothing can need them: the upload ended without an asset, or its bytes are the
// asset's source in the bucket. Young copies are left alone (a chunk may still be arriving).
const COPY_MIN_AGE_MS = 10 * 60_000;

export const dropLeftoverUploadCopies = async (now = Date.now()): Promise<number> => {
  const store = sharedStore();
  if (!store) return 0;
  const { dataDir } = getEnv();
  const ids = await readdir(path.join(dataDir, 'uploads')).catch(() => [] as string[]);
  let dropped = 0;
  for (const uploadId of ids) {
    const directory = uploadDirectory(dataDir, uploadId);
    const modified = (await stat(directory).catch(() => null))?.mtimeMs;
    if (modified === undefined || now - modified < COPY_MIN_AGE_MS) continue;
    const upload = await getDb().upload.findUnique({ where: { id: uploadId }, select: { status: true, assetId: true } });
    if (upload?.status === 'waiting') continue;
    if (upload?.status === 'asset_created') {
      const sourceKey = upload.assetId ? objectKeyOf(dataDir, sourceFilePath(dataDir, upload.assetId)) : null;
      if (!sourceKey || !(await store.stat(sourceKey))) continue;
    }
    await dropLocalUploadCopy(uploadId);
    dropped++;
  }
  return dropped;
};
