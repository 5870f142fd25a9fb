import { z } from 'zod';
import { dataResponse, noContentResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { serializePlaybackId } from '@/lib/schemas/asset';
import { idParam } from '@/lib/schemas/common';
import { deleteLivePlaybackId, getLivePlaybackId } from '@/lib/services/live-streams/live-playback-ids';

export const dynamic = 'force-dynamic';

const params = z.object({ liveStreamId: idParam('Live stream'), playbackId: idParam('Playback') });

// GET /video/v1/live-streams/{LIVE_STREAM_ID}/playback-ids/{PLAYBACK_ID}
export const GET = withApi(async ({ params }) => dataResponse(serializePlaybackId(await getLivePlaybackId(params))), { params });

// DELETE /video/v1/live-streams/{LIVE_STREAM_ID}/playback-ids/{PLAYBACK_ID}
export const DELETE = withApi(
  async ({ params }) => {
    await deleteLivePlaybackId(params);
    return noContentResponse();
  },
  { params },
);
