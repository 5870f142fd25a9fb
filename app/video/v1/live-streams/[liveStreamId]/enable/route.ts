import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { idParam } from '@/lib/schemas/common';
import { enableLiveStream } from '@/lib/services/live-streams/enable-live-stream';

export const dynamic = 'force-dynamic';

// PUT /video/v1/live-streams/{LIVE_STREAM_ID}/enable – accept the publisher again
export const PUT = withApi(
  async ({ params }) => {
    await enableLiveStream(params);
    return dataResponse({});
  },
  { params: z.object({ liveStreamId: idParam('Live stream') }) },
);
