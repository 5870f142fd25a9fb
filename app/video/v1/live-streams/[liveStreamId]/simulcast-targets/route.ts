import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { idParam } from '@/lib/schemas/common';
import { createSimulcastTargetSchema, serializeSimulcastTarget } from '@/lib/schemas/simulcast-target';
import { createSimulcastTarget } from '@/lib/services/live-streams/simulcast-targets';

export const dynamic = 'force-dynamic';

// POST /video/v1/live-streams/{LIVE_STREAM_ID}/simulcast-targets – add a restream destination (201, idle; only while the stream is idle)
export const POST = withApi(
  async ({ params, body }) => dataResponse(serializeSimulcastTarget(await createSimulcastTarget({ liveStreamId: params.liveStreamId, body })), 201),
  { params: z.object({ liveStreamId: idParam('Live stream') }), body: createSimulcastTargetSchema },
);
