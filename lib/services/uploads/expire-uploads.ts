import { getDb } from '../../db/client';
import { dropUploadBytes } from './shared-upload-parts';
import type { StoredUpload } from './upload-record';

// An upload that did not complete within its timeout becomes `timed_out` and its partial bytes are
// removed. Done lazily whenever an upload is read, and by a periodic sweep for the rest.

export const expireUploadIfDue = async (upload: StoredUpload): Promise<StoredUpload> => {
  if (upload.status !== 'waiting' || upload.expiresAt.getTime() > Date.now()) return upload;
  const db = getDb();
  const updated = await db.upload.updateMany({ where: { id: upload.id, status: 'waiting' }, data: { status: 'timed_out' } });
  if (updated.count > 0) await dropUploadBytes(upload.id);
  return db.upload.findUniqueOrThrow({ where: { id: upload.id } });
};

export const expireDueUploads = async (): Promise<number> => {
  const due = await getDb().upload.findMany({ where: { status: 'waiting', expiresAt: { lte: new Date() } } });
  for (const upload of due) await expireUploadIfDue(upload);
  return due.length;
};
