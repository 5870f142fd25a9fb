import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { idParam } from '@/lib/schemas/common';
import { getAssetRenditions } from '@/lib/services/dashboard/get-asset-renditions';

export const dynamic = 'force-dynamic';

// GET /api/dashboard/assets/{ASSET_ID}/renditions – the ladder and which segments are encoded
export const GET = withDashboard(
  async ({ params }) =>
    dataResponse(
      (await getAssetRenditions({ assetId: params.assetId })).map((rendition) => ({
        name: rendition.name,
        width: rendition.width,
        height: rendition.height,
        bitrate: rendition.bitrate,
        background: rendition.background,
        listed: rendition.listed,
        segment_count: rendition.segmentCount,
        encoded_segments: rendition.encodedSegments,
      })),
    ),
  { params: z.object({ assetId: idParam('Asset') }) },
);
