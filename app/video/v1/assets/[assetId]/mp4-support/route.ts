import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { assetJson } from '@/lib/services/master/master-links';
import { idParam } from '@/lib/schemas/common';
import { MP4_SUPPORT_VALUES } from '@/lib/schemas/static-rendition';
import { updateMp4Support } from '@/lib/services/static-renditions/update-mp4-support';

export const dynamic = 'force-dynamic';

// PUT /video/v1/assets/{ASSET_ID}/mp4-support – the legacy MP4 setting (deprecated by Mux)
export const PUT = withApi(
  async ({ params, body }) => dataResponse(assetJson(await updateMp4Support({ assetId: params.assetId, mp4Support: body.mp4_support }))),
  { params: z.object({ assetId: idParam('Asset') }), body: z.object({ mp4_support: z.enum(MP4_SUPPORT_VALUES) }) },
);
