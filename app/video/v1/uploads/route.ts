import { dataResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { pageQuerySchema } from '@/lib/schemas/common';
import { createUploadSchema } from '@/lib/schemas/upload';
import { createUpload } from '@/lib/services/uploads/create-upload';
import { listUploads } from '@/lib/services/uploads/list-uploads';
import { uploadJson } from '@/lib/services/uploads/upload-record';

export const dynamic = 'force-dynamic';

// POST /video/v1/uploads – create a direct upload URL
export const POST = withApi(async ({ body }) => dataResponse(await uploadJson(await createUpload({ body })), 201), {
  body: createUploadSchema,
});

// GET /video/v1/uploads – list direct uploads, newest first
export const GET = withApi(
  async ({ query }) => {
    const uploads = await listUploads({ limit: query.limit, page: query.page });
    return dataResponse(await Promise.all(uploads.map(uploadJson)));
  },
  { query: pageQuerySchema },
);
