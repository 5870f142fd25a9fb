import { dataResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { pageQuerySchema } from '@/lib/schemas/common';
import { createLiveStreamSchema, listLiveStreamsQuerySchema, serializeLiveStream } from '@/lib/schemas/live-stream';
import { createLiveStream } from '@/lib/services/live-streams/create-live-stream';
import { listLiveStreams } from '@/lib/services/live-streams/list-live-streams';

export const dynamic = 'force-dynamic';

// POST /video/v1/live-streams – create a live stream (idle, with its stream key)
export const POST = withApi(async ({ body }) => dataResponse(serializeLiveStream(await createLiveStream({ body })), 201), {
  body: createLiveStreamSchema,
});

// GET /video/v1/live-streams – list live streams, newest first
export const GET = withApi(
  async ({ query }) => {
    const streams = await listLiveStreams({ limit: query.limit, page: query.page, status: query.status, streamKey: query.stream_key });
    return dataResponse(streams.map(serializeLiveStream));
  },
  { query: pageQuerySchema.extend(listLiveStreamsQuerySchema.shape) },
);
