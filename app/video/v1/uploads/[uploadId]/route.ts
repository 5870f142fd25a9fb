import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { idParam } from '@/lib/schemas/common';
import { getUpload } from '@/lib/services/uploads/get-upload';
import { uploadJson } from '@/lib/services/uploads/upload-record';

export const dynamic = 'force-dynamic';

// GET /video/v1/uploads/{UPLOAD_ID} – one direct upload
export const GET = withApi(async ({ params }) => dataResponse(await uploadJson(await getUpload({ uploadId: params.uploadId }))), {
  params: z.object({ uploadId: idParam('Upload') }),
});
