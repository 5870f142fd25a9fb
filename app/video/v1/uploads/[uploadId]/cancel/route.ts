import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { idParam } from '@/lib/schemas/common';
import { cancelUpload } from '@/lib/services/uploads/cancel-upload';
import { uploadJson } from '@/lib/services/uploads/upload-record';

export const dynamic = 'force-dynamic';

// PUT /video/v1/uploads/{UPLOAD_ID}/cancel – cancel a direct upload that is still waiting
export const PUT = withApi(async ({ params }) => dataResponse(await uploadJson(await cancelUpload({ uploadId: params.uploadId }))), {
  params: z.object({ uploadId: idParam('Upload') }),
});
