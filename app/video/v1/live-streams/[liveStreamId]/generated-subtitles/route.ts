import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { idParam } from '@/lib/schemas/common';
import { generatedLiveSubtitlesSchema } from '@/lib/schemas/live-captions';
import { serializeLiveStream } from '@/lib/schemas/live-stream';
import { setGeneratedLiveSubtitles } from '@/lib/services/live-streams/live-subtitles-settings';

export const dynamic = 'force-dynamic';

// PUT /video/v1/live-streams/{LIVE_STREAM_ID}/generated-subtitles – the whole list (`[]` turns captions off), from the next broadcast on
export const PUT = withApi(
  async ({ params, body }) =>
    dataResponse(serializeLiveStream(await setGeneratedLiveSubtitles({ liveStreamId: params.liveStreamId, generatedSubtitles: body.generated_subtitles }))),
  { params: z.object({ liveStreamId: idParam('Live stream') }), body: z.object({ generated_subtitles: generatedLiveSubtitlesSchema }) },
);
