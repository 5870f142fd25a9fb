import { z } from 'zod';
import { dataResponse, noContentResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { serializePlaybackId } from '@/lib/schemas/asset';
import { idParam } from '@/lib/schemas/common';
import { deletePlaybackId } from '@/lib/services/playback-ids/delete-playback-id';
import { getAssetPlaybackId } from '@/lib/services/playback-ids/get-asset-playback-id';

export const dynamic = 'force-dynamic';

const params = z.object({ assetId: idParam('Asset'), playbackId: idParam('Playback') });

// GET /video/v1/assets/{ASSET_ID}/playback-ids/{PLAYBACK_ID}
export const GET = withApi(async ({ params }) => dataResponse(serializePlaybackId(await getAssetPlaybackId(params))), {
  params,
});

// DELETE /video/v1/assets/{ASSET_ID}/playback-ids/{PLAYBACK_ID}
export const DELETE = withApi(
  async ({ params }) => {
    await deletePlaybackId(params);
    return noContentResponse();
  },
  { params },
);
