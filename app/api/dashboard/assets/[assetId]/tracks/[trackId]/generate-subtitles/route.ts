import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { idParam } from '@/lib/schemas/common';
import { generateSubtitlesSchema, serializeTrack } from '@/lib/schemas/track';
import { generateSubtitles } from '@/lib/services/tracks/manage-tracks';

export const dynamic = 'force-dynamic';

// POST /api/dashboard/assets/{ASSET_ID}/tracks/{TRACK_ID}/generate-subtitles – the asset page's "Generate captions" from an audio track
export const POST = withDashboard(
  async ({ params, body }) => {
    const tracks = await generateSubtitles({ assetId: params.assetId, trackId: params.trackId, requests: body.generated_subtitles });
    return dataResponse(tracks.map(serializeTrack), 201);
  },
  { params: z.object({ assetId: idParam('Asset'), trackId: idParam('Track') }), body: generateSubtitlesSchema },
);
