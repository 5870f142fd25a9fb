import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { idParam } from '@/lib/schemas/common';
import { generateSubtitlesSchema, serializeTrack } from '@/lib/schemas/track';
import { generateSubtitles } from '@/lib/services/tracks/manage-tracks';

export const dynamic = 'force-dynamic';

// POST /video/v1/assets/{ASSET_ID}/tracks/{TRACK_ID}/generate-subtitles – transcribe an audio track into text tracks
export const POST = withApi(
  async ({ params, body }) => {
    const tracks = await generateSubtitles({ assetId: params.assetId, trackId: params.trackId, requests: body.generated_subtitles });
    return dataResponse(tracks.map(serializeTrack), 201);
  },
  { params: z.object({ assetId: idParam('Asset'), trackId: idParam('Track') }), body: generateSubtitlesSchema },
);
