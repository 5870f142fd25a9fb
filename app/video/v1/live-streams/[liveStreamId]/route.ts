import { z } from 'zod';
import { dataResponse, noContentResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { idParam } from '@/lib/schemas/common';
import { serializeLiveStream, updateLiveStreamSchema } from '@/lib/schemas/live-stream';
import { deleteLiveStream } from '@/lib/services/live-streams/delete-live-stream';
import { getLiveStream } from '@/lib/services/live-streams/get-live-stream';
import { updateLiveStream } from '@/lib/services/live-streams/update-live-stream';

export const dynamic = 'force-dynamic';

const params = z.object({ liveStreamId: idParam('Live stream') });

// GET /video/v1/live-streams/{LIVE_STREAM_ID}
export const GET = withApi(async ({ params }) => dataResponse(serializeLiveStream(await getLiveStream(params))), { params });

// PATCH /video/v1/live-streams/{LIVE_STREAM_ID} – the settings Mux lets change
export const PATCH = withApi(
  async ({ params, body }) => dataResponse(serializeLiveStream(await updateLiveStream({ liveStreamId: params.liveStreamId, body }))),
  { params, body: updateLiveStreamSchema },
);

// DELETE /video/v1/live-streams/{LIVE_STREAM_ID} – ends a running broadcast, then deletes the stream
export const DELETE = withApi(
  async ({ params }) => {
    await deleteLiveStream(params);
    return noContentResponse();
  },
  { params },
);
