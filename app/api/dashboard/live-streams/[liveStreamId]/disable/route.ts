import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { idParam } from '@/lib/schemas/common';
import { serializeLiveStream } from '@/lib/schemas/live-stream';
import { getLiveStream } from '@/lib/services/live-streams/get-live-stream';
import { disableLiveStream } from '@/lib/services/live-streams/disable-live-stream';

export const dynamic = 'force-dynamic';

// PUT /api/dashboard/live-streams/{LIVE_STREAM_ID}/disable – the page's "Disable": refuses the publisher (ending a running broadcast) until enabled
export const PUT = withDashboard(
  async ({ params }) => {
    await disableLiveStream(params);
    return dataResponse(serializeLiveStream(await getLiveStream(params)));
  },
  { params: z.object({ liveStreamId: idParam('Live stream') }) },
);
