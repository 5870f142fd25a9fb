import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { idParam } from '@/lib/schemas/common';
import { readTextTrack } from '@/lib/services/dashboard/read-text-track';

export const dynamic = 'force-dynamic';

// GET /api/dashboard/assets/{ASSET_ID}/tracks/{TRACK_ID}/transcript – a ready text track's plain transcript, shown on the asset page
export const GET = withDashboard(
  async ({ params }) => {
    const { text } = await readTextTrack({ assetId: params.assetId, trackId: params.trackId, format: 'txt' });
    return dataResponse({ text });
  },
  { params: z.object({ assetId: idParam('Asset'), trackId: idParam('Track') }) },
);
