import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { idParam } from '@/lib/schemas/common';
import { createSimulcastTargetSchema, serializeSimulcastTarget } from '@/lib/schemas/simulcast-target';
import { createSimulcastTarget } from '@/lib/services/live-streams/simulcast-targets';

export const dynamic = 'force-dynamic';

// POST /api/dashboard/live-streams/{LIVE_STREAM_ID}/simulcast-targets – the page's "Add target" (same body, checks and idle rule as the API)
export const POST = withDashboard(
  async ({ params, body }) => dataResponse(serializeSimulcastTarget(await createSimulcastTarget({ liveStreamId: params.liveStreamId, body })), 201),
  { params: z.object({ liveStreamId: idParam('Live stream') }), body: createSimulcastTargetSchema },
);
