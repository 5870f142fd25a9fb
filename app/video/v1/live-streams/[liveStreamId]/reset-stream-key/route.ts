import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { idParam } from '@/lib/schemas/common';
import { serializeLiveStream } from '@/lib/schemas/live-stream';
import { resetStreamKey } from '@/lib/services/live-streams/reset-stream-key';

export const dynamic = 'force-dynamic';

// POST /video/v1/live-streams/{LIVE_STREAM_ID}/reset-stream-key – a new key (201, as on Mux)
export const POST = withApi(async ({ params }) => dataResponse(serializeLiveStream(await resetStreamKey(params)), 201), {
  params: z.object({ liveStreamId: idParam('Live stream') }),
});
