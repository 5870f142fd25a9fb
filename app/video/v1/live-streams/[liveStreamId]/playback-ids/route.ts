import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { serializePlaybackId } from '@/lib/schemas/asset';
import { idParam } from '@/lib/schemas/common';
import { createLivePlaybackIdSchema } from '@/lib/schemas/live-stream';
import { createLivePlaybackId } from '@/lib/services/live-streams/live-playback-ids';

export const dynamic = 'force-dynamic';

// POST /video/v1/live-streams/{LIVE_STREAM_ID}/playback-ids – add a playback ID (public unless asked)
export const POST = withApi(
  async ({ params, body }) =>
    dataResponse(serializePlaybackId(await createLivePlaybackId({ liveStreamId: params.liveStreamId, policy: body.policy ?? 'public' })), 201),
  { params: z.object({ liveStreamId: idParam('Live stream') }), body: createLivePlaybackIdSchema },
);
