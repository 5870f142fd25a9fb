import { dataResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { pageQuerySchema } from '@/lib/schemas/common';
import { createPlaybackRestrictionSchema, serializePlaybackRestriction } from '@/lib/schemas/playback-restriction';
import { createPlaybackRestriction } from '@/lib/services/playback-restrictions/create-playback-restriction';
import { listPlaybackRestrictions } from '@/lib/services/playback-restrictions/list-playback-restrictions';

export const dynamic = 'force-dynamic';

// POST /video/v1/playback-restrictions
export const POST = withApi(async ({ body }) => dataResponse(serializePlaybackRestriction(await createPlaybackRestriction(body)), 201), {
  body: createPlaybackRestrictionSchema,
});

// GET /video/v1/playback-restrictions
export const GET = withApi(
  async ({ query }) => dataResponse((await listPlaybackRestrictions({ limit: query.limit, page: query.page })).map(serializePlaybackRestriction)),
  { query: pageQuerySchema },
);
