import { getDb } from '../../db/client';
import { expireUploadIfDue } from './expire-uploads';
import { findUploadOrThrow, type StoredUpload } from './upload-record';

// GET /video/v1/uploads/{id}
export const getUpload = async ({ uploadId }: { uploadId: string }): Promise<StoredUpload> =>
  expireUploadIfDue(await findUploadOrThrow(getDb(), uploadId));
