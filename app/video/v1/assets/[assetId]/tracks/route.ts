import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { idParam } from '@/lib/schemas/common';
import { createTrackSchema, serializeTrack } from '@/lib/schemas/track';
import { createTrack } from '@/lib/services/tracks/manage-tracks';

export const dynamic = 'force-dynamic';

// POST /video/v1/assets/{ASSET_ID}/tracks – add a subtitle (WebVTT/SRT) or audio file; it is prepared in the background
export const POST = withApi(
  async ({ params, body }) => dataResponse(serializeTrack(await createTrack({ assetId: params.assetId, body })), 201),
  { params: z.object({ assetId: idParam('Asset') }), body: createTrackSchema },
);
