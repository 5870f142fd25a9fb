import { getDb } from '../../db/client';
import { ApiError } from '../../errors/api-error';
import { expireUploadIfDue } from './expire-uploads';
import { dropUploadBytes } from './shared-upload-parts';
import { findUploadOrThrow, recordUploadEvent, type StoredUpload } from './upload-record';

// PUT /video/v1/uploads/{id}/cancel: only a `waiting` upload can be cancelled; its partial bytes
// are dropped and a chunk still in flight will not create an asset. Cancelling twice is harmless.
export const cancelUpload = async ({ uploadId }: { uploadId: string }): Promise<StoredUpload> => {
  const db = getDb();
  const upload = await expireUploadIfDue(await findUploadOrThrow(db, uploadId));
  if (upload.status === 'cancelled') return upload;
  if (upload.status !== 'waiting') {
    throw new ApiError('forbidden', `Cancellation no longer possible: the upload is ${upload.status}`);
  }
  const cancelled = await db.$transaction(async (tx) => {
    const updated = await tx.upload.updateMany({ where: { id: uploadId, status: 'waiting' }, data: { status: 'cancelled' } });
    if (updated.count === 0) return undefined;
    const row = await tx.upload.findUniqueOrThrow({ where: { id: uploadId } });
    await recordUploadEvent(tx, 'video.upload.cancelled', row);
    return row;
  });
  if (!cancelled) return cancelUpload({ uploadId }); // it changed under us; answer from its new state
  // A chunk being written right now finds the upload cancelled when it finishes and removes what
  // it wrote (see receive-upload-bytes.ts).
  await dropUploadBytes(uploadId);
  return cancelled;
};
