import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { idParam } from '@/lib/schemas/common';
import { getLiveStreamRecordings } from '@/lib/services/dashboard/get-live-stream-recordings';
import { assetJson } from '@/lib/services/master/master-links';

export const dynamic = 'force-dynamic';

// GET /api/dashboard/live-streams/{LIVE_STREAM_ID}/recordings – the assets of recent_asset_ids,
// newest first; a deleted one keeps its id with `asset: null`
export const GET = withDashboard(
  async ({ params }) => {
    const recordings = await getLiveStreamRecordings(params);
    return dataResponse(recordings.map(({ assetId, asset }) => ({ id: assetId, asset: asset && assetJson(asset) })));
  },
  { params: z.object({ liveStreamId: idParam('Live stream') }) },
);
