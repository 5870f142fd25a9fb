import { getDb } from '../../db/client';
import { findUploadOrThrow } from './upload-record';

// The origin a browser page must have to send this upload's bytes (null: browsers may not).
export const getUploadCorsOrigin = async ({ uploadId }: { uploadId: string }): Promise<string | null> =>
  (await findUploadOrThrow(getDb(), uploadId)).corsOrigin;
