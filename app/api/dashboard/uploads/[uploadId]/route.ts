import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { idParam } from '@/lib/schemas/common';
import { getUpload } from '@/lib/services/uploads/get-upload';
import { uploadJson } from '@/lib/services/uploads/upload-record';

export const dynamic = 'force-dynamic';

// GET /api/dashboard/uploads/{UPLOAD_ID} – polled after the last chunk until asset_id appears
export const GET = withDashboard(async ({ params }) => dataResponse(await uploadJson(await getUpload({ uploadId: params.uploadId }))), {
  params: z.object({ uploadId: idParam('Upload') }),
});
