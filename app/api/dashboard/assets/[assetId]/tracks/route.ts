import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { idParam } from '@/lib/schemas/common';
import { createTrackSchema, serializeTrack } from '@/lib/schemas/track';
import { createTrack } from '@/lib/services/tracks/manage-tracks';

export const dynamic = 'force-dynamic';

// POST /api/dashboard/assets/{ASSET_ID}/tracks – the asset page's "Add subtitles" (same body and validation as the API)
export const POST = withDashboard(
  async ({ params, body }) => dataResponse(serializeTrack(await createTrack({ assetId: params.assetId, body })), 201),
  { params: z.object({ assetId: idParam('Asset') }), body: createTrackSchema },
);
