import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { assetSettingsSchema } from '@/lib/schemas/asset-settings';
import { createUpload } from '@/lib/services/uploads/create-upload';
import { uploadJson } from '@/lib/services/uploads/upload-record';

export const dynamic = 'force-dynamic';

// POST /api/dashboard/uploads – a direct upload for one dropped file. The browser sends the bytes
// straight to the upload URL, so CORS is opened for the dashboard's own origin only.
export const POST = withDashboard(
  async ({ request, body }) => {
    const origin = request.headers.get('origin') ?? new URL(request.url).origin;
    const upload = await createUpload({ body: { cors_origin: origin, new_asset_settings: body } });
    return dataResponse(await uploadJson(upload), 201);
  },
  { body: assetSettingsSchema },
);
