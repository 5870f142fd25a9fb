import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { idParam } from '@/lib/schemas/common';
import { cancelUpload } from '@/lib/services/uploads/cancel-upload';
import { uploadJson } from '@/lib/services/uploads/upload-record';

export const dynamic = 'force-dynamic';

// PUT /api/dashboard/uploads/{UPLOAD_ID}/cancel – the user cancelled the file's upload
export const PUT = withDashboard(
  async ({ params }) => dataResponse(await uploadJson(await cancelUpload({ uploadId: params.uploadId }))),
  { params: z.object({ uploadId: idParam('Upload') }) },
);
