import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { idParam } from '@/lib/schemas/common';
import { disableLiveStream } from '@/lib/services/live-streams/disable-live-stream';

export const dynamic = 'force-dynamic';

// PUT /video/v1/live-streams/{LIVE_STREAM_ID}/disable – refuse the publisher until enabled
export const PUT = withApi(
  async ({ params }) => {
    await disableLiveStream(params);
    return dataResponse({});
  },
  { params: z.object({ liveStreamId: idParam('Live stream') }) },
);
