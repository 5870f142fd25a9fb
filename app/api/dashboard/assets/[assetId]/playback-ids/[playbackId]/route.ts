import { z } from 'zod';
import { noContentResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { idParam } from '@/lib/schemas/common';
import { deletePlaybackId } from '@/lib/services/playback-ids/delete-playback-id';

export const dynamic = 'force-dynamic';

// DELETE /api/dashboard/assets/{ASSET_ID}/playback-ids/{PLAYBACK_ID} – remove a playback ID
export const DELETE = withDashboard(
  async ({ params }) => {
    await deletePlaybackId({ assetId: params.assetId, playbackId: params.playbackId });
    return noContentResponse();
  },
  { params: z.object({ assetId: idParam('Asset'), playbackId: idParam('Playback') }) },
);
