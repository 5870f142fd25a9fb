import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { idParam } from '@/lib/schemas/common';
import { lookupPlaybackId } from '@/lib/services/playback-ids/lookup-playback-id';

export const dynamic = 'force-dynamic';

// GET /video/v1/playback-ids/{PLAYBACK_ID} – which asset or live stream a playback ID belongs to
export const GET = withApi(async ({ params }) => dataResponse(await lookupPlaybackId({ playbackId: params.playbackId })), {
  params: z.object({ playbackId: idParam('Playback') }),
});
