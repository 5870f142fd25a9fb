import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { idParam } from '@/lib/schemas/common';
import { serializeLiveStream } from '@/lib/schemas/live-stream';
import { resetStreamKey } from '@/lib/services/live-streams/reset-stream-key';

export const dynamic = 'force-dynamic';

// POST /api/dashboard/live-streams/{LIVE_STREAM_ID}/reset-stream-key – the page's "Reset key": the old key stops working at once
export const POST = withDashboard(async ({ params }) => dataResponse(serializeLiveStream(await resetStreamKey(params)), 201), {
  params: z.object({ liveStreamId: idParam('Live stream') }),
});
