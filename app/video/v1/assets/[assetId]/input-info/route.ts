import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { idParam } from '@/lib/schemas/common';
import { getAssetInputInfo } from '@/lib/services/assets/get-asset-input-info';

export const dynamic = 'force-dynamic';

// GET /video/v1/assets/{ASSET_ID}/input-info – the submitted input and what the file contains
export const GET = withApi(async ({ params }) => dataResponse(await getAssetInputInfo({ assetId: params.assetId })), {
  params: z.object({ assetId: idParam('Asset') }),
});
