import { z } from 'zod';
import { dataResponse, noContentResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { idParam } from '@/lib/schemas/common';
import { serializeSimulcastTarget } from '@/lib/schemas/simulcast-target';
import { deleteSimulcastTarget, getSimulcastTarget } from '@/lib/services/live-streams/simulcast-targets';

export const dynamic = 'force-dynamic';

const params = z.object({ liveStreamId: idParam('Live stream'), simulcastTargetId: idParam('Simulcast target') });

// GET /video/v1/live-streams/{LIVE_STREAM_ID}/simulcast-targets/{SIMULCAST_TARGET_ID}
export const GET = withApi(async ({ params }) => dataResponse(serializeSimulcastTarget(await getSimulcastTarget(params))), { params });

// DELETE /video/v1/live-streams/{LIVE_STREAM_ID}/simulcast-targets/{SIMULCAST_TARGET_ID} – only while the stream is idle
export const DELETE = withApi(
  async ({ params }) => {
    await deleteSimulcastTarget(params);
    return noContentResponse();
  },
  { params },
);
