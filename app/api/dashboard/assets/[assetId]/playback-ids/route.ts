import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { serializePlaybackId } from '@/lib/schemas/asset';
import { idParam } from '@/lib/schemas/common';
import { createPlaybackId } from '@/lib/services/playback-ids/create-playback-id';

export const dynamic = 'force-dynamic';

// POST /api/dashboard/assets/{ASSET_ID}/playback-ids – add a public or signed playback ID
export const POST = withDashboard(
  async ({ params, body }) =>
    dataResponse(serializePlaybackId(await createPlaybackId({ assetId: params.assetId, policy: body.policy })), 201),
  { params: z.object({ assetId: idParam('Asset') }), body: z.object({ policy: z.enum(['public', 'signed']) }) },
);
