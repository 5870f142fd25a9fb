import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { idParam } from '@/lib/schemas/common';
import { getAssetInputs } from '@/lib/services/dashboard/get-asset-inputs';

export const dynamic = 'force-dynamic';

// GET /api/dashboard/assets/{ASSET_ID}/inputs – the inputs as submitted (video, clip range, watermarks)
export const GET = withDashboard(async ({ params }) => dataResponse(await getAssetInputs({ assetId: params.assetId })), {
  params: z.object({ assetId: idParam('Asset') }),
});
