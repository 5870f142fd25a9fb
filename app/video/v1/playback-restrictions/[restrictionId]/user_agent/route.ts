import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { idParam } from '@/lib/schemas/common';
import { serializePlaybackRestriction, userAgentRulesSchema } from '@/lib/schemas/playback-restriction';
import { updatePlaybackRestriction } from '@/lib/services/playback-restrictions/update-playback-restriction';

export const dynamic = 'force-dynamic';

// PUT /video/v1/playback-restrictions/{ID}/user_agent
export const PUT = withApi(
  async ({ params, body }) =>
    dataResponse(serializePlaybackRestriction(await updatePlaybackRestriction({ restrictionId: params.restrictionId, userAgent: body }))),
  { params: z.object({ restrictionId: idParam('Playback Restriction') }), body: userAgentRulesSchema },
);
