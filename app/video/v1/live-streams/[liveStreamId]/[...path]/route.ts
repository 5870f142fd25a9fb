import { z } from 'zod';
import { ApiError, UNKNOWN_ROUTE_MESSAGE } from '@/lib/http/api-error';
import { withApi } from '@/lib/http/with-api';
import { idParam } from '@/lib/schemas/common';
import { unsupportedLiveSubresource } from '@/lib/schemas/live-stream';
import { getLiveStream } from '@/lib/services/live-streams/get-live-stream';

export const dynamic = 'force-dynamic';

// Any other path under a live stream: Mux's live features Keyframe lacks (embedded and
// generated live subtitles) are a 400 that says so; anything else a JSON 404.
const refuse = withApi(
  async ({ params }) => {
    const unsupported = unsupportedLiveSubresource(params.path[0]);
    if (!unsupported) throw new ApiError('not_found', UNKNOWN_ROUTE_MESSAGE);
    await getLiveStream({ liveStreamId: params.liveStreamId });
    throw new ApiError('invalid_parameters', unsupported);
  },
  { params: z.object({ liveStreamId: idParam('Live stream'), path: z.array(z.string()) }) },
);

export const { GET, POST, PUT, PATCH, DELETE } = { GET: refuse, POST: refuse, PUT: refuse, PATCH: refuse, DELETE: refuse };
