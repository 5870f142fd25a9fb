import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { idParam } from '@/lib/schemas/common';
import { serializeLiveStream } from '@/lib/schemas/live-stream';
import { getLiveStream } from '@/lib/services/live-streams/get-live-stream';
import { completeLiveStream } from '@/lib/services/live-streams/complete-live-stream';

export const dynamic = 'force-dynamic';

// PUT /api/dashboard/live-streams/{LIVE_STREAM_ID}/complete – the page's "Complete": ends the running broadcast and closes its recording
export const PUT = withDashboard(
  async ({ params }) => {
    await completeLiveStream(params);
    return dataResponse(serializeLiveStream(await getLiveStream(params)));
  },
  { params: z.object({ liveStreamId: idParam('Live stream') }) },
);
