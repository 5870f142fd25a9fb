import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { idParam } from '@/lib/schemas/common';
import { serializeLiveStream } from '@/lib/schemas/live-stream';
import { getLiveStream } from '@/lib/services/live-streams/get-live-stream';
import { enableLiveStream } from '@/lib/services/live-streams/enable-live-stream';

export const dynamic = 'force-dynamic';

// PUT /api/dashboard/live-streams/{LIVE_STREAM_ID}/enable – the page's "Enable": a disabled stream is idle again and accepts its publisher
export const PUT = withDashboard(
  async ({ params }) => {
    await enableLiveStream(params);
    return dataResponse(serializeLiveStream(await getLiveStream(params)));
  },
  { params: z.object({ liveStreamId: idParam('Live stream') }) },
);
