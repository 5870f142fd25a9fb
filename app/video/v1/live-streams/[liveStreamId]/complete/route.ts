import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { idParam } from '@/lib/schemas/common';
import { completeLiveStream } from '@/lib/services/live-streams/complete-live-stream';

export const dynamic = 'force-dynamic';

// PUT /video/v1/live-streams/{LIVE_STREAM_ID}/complete – end the running broadcast now
export const PUT = withApi(
  async ({ params }) => {
    await completeLiveStream(params);
    return dataResponse({});
  },
  { params: z.object({ liveStreamId: idParam('Live stream') }) },
);
