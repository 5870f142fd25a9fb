import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { serializePlaybackId } from '@/lib/schemas/asset';
import { idParam } from '@/lib/schemas/common';
import { createPlaybackId } from '@/lib/services/playback-ids/create-playback-id';
import { ApiError } from '@/lib/http/api-error';

export const dynamic = 'force-dynamic';

// POST /video/v1/assets/{ASSET_ID}/playback-ids – add a playback ID
export const POST = withApi(
  async ({ params, body }) => {
    if (body.policy === 'drm') throw new ApiError('invalid_parameters', 'policy: "drm" is not supported by this server');
    return dataResponse(serializePlaybackId(await createPlaybackId({ assetId: params.assetId, policy: body.policy })), 201);
  },
  {
    params: z.object({ assetId: idParam('Asset') }),
    body: z.object({ policy: z.enum(['public', 'signed', 'drm']), drm_configuration_id: z.string().optional() }),
  },
);
