import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { idParam } from '@/lib/schemas/common';
import { embeddedLiveSubtitlesSchema } from '@/lib/schemas/live-captions';
import { serializeLiveStream } from '@/lib/schemas/live-stream';
import { setEmbeddedLiveSubtitles } from '@/lib/services/live-streams/live-subtitles-settings';

export const dynamic = 'force-dynamic';

// PUT /video/v1/live-streams/{LIVE_STREAM_ID}/embedded-subtitles – the CEA-608 channels the publisher carries (the whole list; `[]` for none)
export const PUT = withApi(
  async ({ params, body }) =>
    dataResponse(serializeLiveStream(await setEmbeddedLiveSubtitles({ liveStreamId: params.liveStreamId, embeddedSubtitles: body.embedded_subtitles }))),
  { params: z.object({ liveStreamId: idParam('Live stream') }), body: z.object({ embedded_subtitles: embeddedLiveSubtitlesSchema }) },
);
