import { z } from 'zod';
import { dataResponse, noContentResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { idParam } from '@/lib/schemas/common';
import { serializePlaybackRestriction } from '@/lib/schemas/playback-restriction';
import { deletePlaybackRestriction } from '@/lib/services/playback-restrictions/delete-playback-restriction';
import { getPlaybackRestriction } from '@/lib/services/playback-restrictions/get-playback-restriction';

export const dynamic = 'force-dynamic';

const params = z.object({ restrictionId: idParam('Playback Restriction') });

// GET /video/v1/playback-restrictions/{ID}
export const GET = withApi(
  async ({ params }) => dataResponse(serializePlaybackRestriction(await getPlaybackRestriction({ restrictionId: params.restrictionId }))),
  { params },
);

// DELETE /video/v1/playback-restrictions/{ID} – tokens naming it are refused afterwards
export const DELETE = withApi(
  async ({ params }) => {
    await deletePlaybackRestriction({ restrictionId: params.restrictionId });
    return noContentResponse();
  },
  { params },
);
