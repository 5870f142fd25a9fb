import { z } from 'zod';
import { dataResponse, noContentResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { idParam } from '@/lib/schemas/common';
import { serializeTrack, updateTrackSchema } from '@/lib/schemas/track';
import { deleteTrack, updateTrack } from '@/lib/services/tracks/manage-tracks';

export const dynamic = 'force-dynamic';

const params = z.object({ assetId: idParam('Asset'), trackId: idParam('Track') });

// PATCH /api/dashboard/assets/{ASSET_ID}/tracks/{TRACK_ID} – the asset page's "Edit" of a track (name, language, closed captions)
export const PATCH = withDashboard(
  async ({ params, body }) => dataResponse(serializeTrack(await updateTrack({ assetId: params.assetId, trackId: params.trackId, body }))),
  { params, body: updateTrackSchema },
);

// DELETE /api/dashboard/assets/{ASSET_ID}/tracks/{TRACK_ID} – a text track or an audio track other than the primary
export const DELETE = withDashboard(
  async ({ params }) => {
    await deleteTrack({ assetId: params.assetId, trackId: params.trackId });
    return noContentResponse();
  },
  { params },
);
