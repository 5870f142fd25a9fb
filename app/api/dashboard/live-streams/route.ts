import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { pageQuerySchema } from '@/lib/schemas/common';
import { createLiveStreamSchema, serializeLiveStream } from '@/lib/schemas/live-stream';
import { pageLiveStreams } from '@/lib/services/dashboard/page-live-streams';
import { createLiveStream } from '@/lib/services/live-streams/create-live-stream';

export const dynamic = 'force-dynamic';

const DEFAULT_LIMIT = 25;

// GET /api/dashboard/live-streams – the live stream table with a total for page numbers. Stream
// keys stay out of the list (the stream's own and its simulcast targets'): only a stream's own page
// reveals its key.
export const GET = withDashboard(
  async ({ query }) => {
    const page = query.page ?? 1;
    const limit = query.limit ?? DEFAULT_LIMIT;
    const { liveStreams, total } = await pageLiveStreams({ page, limit });
    const rows = liveStreams.map((stream) => {
      const { stream_key: _key, srt_passphrase: _passphrase, simulcast_targets: targets, ...row } = serializeLiveStream(stream);
      return { ...row, ...(targets && { simulcast_targets: targets.map(({ stream_key: _targetKey, ...target }) => target) }) };
    });
    return dataResponse(rows, 200, { total, page, limit });
  },
  { query: pageQuerySchema },
);

// POST /api/dashboard/live-streams – create a live stream (same body and validation as the API)
export const POST = withDashboard(async ({ body }) => dataResponse(serializeLiveStream(await createLiveStream({ body })), 201), {
  body: createLiveStreamSchema,
});
