import { z } from 'zod';
import { noContentResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { idParam } from '@/lib/schemas/common';
import { deleteSimulcastTarget } from '@/lib/services/live-streams/simulcast-targets';

export const dynamic = 'force-dynamic';

// DELETE /api/dashboard/live-streams/{LIVE_STREAM_ID}/simulcast-targets/{SIMULCAST_TARGET_ID} – the page's "Remove" (only while the stream is idle)
export const DELETE = withDashboard(
  async ({ params }) => {
    await deleteSimulcastTarget(params);
    return noContentResponse();
  },
  { params: z.object({ liveStreamId: idParam('Live stream'), simulcastTargetId: idParam('Simulcast target') }) },
);
