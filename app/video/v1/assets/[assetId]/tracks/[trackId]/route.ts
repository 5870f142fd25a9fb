import { z } from 'zod';
import { dataResponse, noContentResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { idParam } from '@/lib/schemas/common';
import { serializeTrack, updateTrackSchema } from '@/lib/schemas/track';
import { deleteTrack, updateTrack } from '@/lib/services/tracks/manage-tracks';

export const dynamic = 'force-dynamic';

const params = z.object({ assetId: idParam('Asset'), trackId: idParam('Track') });

// PATCH /video/v1/assets/{ASSET_ID}/tracks/{TRACK_ID} – rename, relabel the language, the SDH flag, passthrough
export const PATCH = withApi(
  async ({ params, body }) => dataResponse(serializeTrack(await updateTrack({ assetId: params.assetId, trackId: params.trackId, body }))),
  { params, body: updateTrackSchema },
);

// DELETE /video/v1/assets/{ASSET_ID}/tracks/{TRACK_ID} – a text track or an audio track other than the primary
export const DELETE = withApi(
  async ({ params }) => {
    await deleteTrack({ assetId: params.assetId, trackId: params.trackId });
    return noContentResponse();
  },
  { params },
);
