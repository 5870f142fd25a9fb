import { getDb } from '../../db/client';
import { expireDueUploads } from './expire-uploads';
import type { StoredUpload } from './upload-record';

export const DEFAULT_UPLOAD_PAGE_LIMIT = 25;

// GET /video/v1/uploads, newest first, with Mux's page-number paging (an empty page past the end).
export const listUploads = async ({ limit = DEFAULT_UPLOAD_PAGE_LIMIT, page = 1 }: { limit?: number; page?: number }): Promise<StoredUpload[]> => {
  await expireDueUploads();
  return getDb().upload.findMany({
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    skip: (page - 1) * limit,
    take: limit,
  });
};
