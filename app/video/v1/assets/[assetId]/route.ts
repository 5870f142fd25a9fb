import { z } from 'zod';
import { dataResponse, noContentResponse } from '@/lib/http/respond';
import { limitPolling } from '@/lib/http/polling-rate-limit';
import { withApi } from '@/lib/http/with-api';
import { assetJson } from '@/lib/services/master/master-links';
import { metaSchema, passthroughSchema } from '@/lib/schemas/asset-settings';
import { idParam } from '@/lib/schemas/common';
import { deleteAsset } from '@/lib/services/assets/delete-asset';
import { getAsset } from '@/lib/services/assets/get-asset';
import { updateAsset } from '@/lib/services/assets/update-asset';

export const dynamic = 'force-dynamic';

const params = z.object({ assetId: idParam('Asset') });

// GET /video/v1/assets/{ASSET_ID} – one asset (polling is limited per token and asset)
export const GET = withApi(async ({ params }) => dataResponse(assetJson(await getAsset({ assetId: params.assetId }))), {
  params,
  guard: limitPolling(({ token, params }) => `${token.id}:${params.assetId}`),
});

// PATCH /video/v1/assets/{ASSET_ID} – update passthrough and meta
export const PATCH = withApi(
  async ({ params, body }) =>
    dataResponse(assetJson(await updateAsset({ assetId: params.assetId, passthrough: body.passthrough, meta: body.meta }))),
  { params, body: z.object({ passthrough: passthroughSchema.optional(), meta: metaSchema.optional() }) },
);

// DELETE /video/v1/assets/{ASSET_ID} – delete the asset and its files
export const DELETE = withApi(
  async ({ params }) => {
    await deleteAsset({ assetId: params.assetId });
    return noContentResponse();
  },
  { params },
);
