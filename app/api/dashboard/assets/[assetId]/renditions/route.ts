import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { idParam } from '@/lib/schemas/common';
import { serializeRenditionStatus } from '@/lib/schemas/rendition-status';
import { getAssetRenditions } from '@/lib/services/dashboard/get-asset-renditions';

export const dynamic = 'force-dynamic';

// GET /api/dashboard/assets/{ASSET_ID}/renditions – the ladder and which segments are encoded
export const GET = withDashboard(
  async ({ params }) =>
    dataResponse((await getAssetRenditions({ assetId: params.assetId })).map(serializeRenditionStatus)),
  { params: z.object({ assetId: idParam('Asset') }) },
);
