import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { idParam } from '@/lib/schemas/common';
import { serializeStaticRendition, STATIC_RESOLUTIONS } from '@/lib/schemas/static-rendition';
import { passthroughSchema } from '@/lib/schemas/asset-settings';
import { createStaticRendition } from '@/lib/services/static-renditions/create-static-rendition';

export const dynamic = 'force-dynamic';

// POST /video/v1/assets/{ASSET_ID}/static-renditions – request an MP4/M4A file
export const POST = withApi(
  async ({ params, body }) =>
    dataResponse(serializeStaticRendition(await createStaticRendition({ assetId: params.assetId, resolution: body.resolution, passthrough: body.passthrough })), 201),
  {
    params: z.object({ assetId: idParam('Asset') }),
    body: z.object({ resolution: z.enum(STATIC_RESOLUTIONS), passthrough: passthroughSchema.optional() }),
  },
);
