import { z } from 'zod';
import { dataResponse, noContentResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { assetJson } from '@/lib/services/master/master-links';
import { idParam } from '@/lib/schemas/common';
import { deleteAsset } from '@/lib/services/assets/delete-asset';
import { getAsset } from '@/lib/services/assets/get-asset';

export const dynamic = 'force-dynamic';

const params = z.object({ assetId: idParam('Asset') });

// GET /api/dashboard/assets/{ASSET_ID} – one asset, as the API returns it (no polling limit: the
// dashboard polls while it prepares)
export const GET = withDashboard(async ({ params }) => dataResponse(assetJson(await getAsset({ assetId: params.assetId }))), {
  params,
});

// DELETE /api/dashboard/assets/{ASSET_ID} – delete the asset and its files
export const DELETE = withDashboard(
  async ({ params }) => {
    await deleteAsset({ assetId: params.assetId });
    return noContentResponse();
  },
  { params },
);
