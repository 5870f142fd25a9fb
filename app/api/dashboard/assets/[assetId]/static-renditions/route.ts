import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { idParam } from '@/lib/schemas/common';
import { serializeStaticRendition, STATIC_RESOLUTIONS } from '@/lib/schemas/static-rendition';
import { createStaticRendition } from '@/lib/services/static-renditions/create-static-rendition';

export const dynamic = 'force-dynamic';

// POST /api/dashboard/assets/{ASSET_ID}/static-renditions – the asset page's "Add MP4"
export const POST = withDashboard(
  async ({ params, body }) =>
    dataResponse(serializeStaticRendition(await createStaticRendition({ assetId: params.assetId, resolution: body.resolution })), 201),
  { params: z.object({ assetId: idParam('Asset') }), body: z.object({ resolution: z.enum(STATIC_RESOLUTIONS) }) },
);
