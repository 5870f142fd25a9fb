import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { idParam } from '@/lib/schemas/common';
import { assetJson } from '@/lib/services/master/master-links';
import { setMasterAccess } from '@/lib/services/master/set-master-access';

export const dynamic = 'force-dynamic';

// PUT /api/dashboard/assets/{ASSET_ID}/master-access – the asset page's master access switch
export const PUT = withDashboard(
  async ({ params, body }) => dataResponse(assetJson(await setMasterAccess({ assetId: params.assetId, masterAccess: body.master_access }))),
  { params: z.object({ assetId: idParam('Asset') }), body: z.object({ master_access: z.enum(['none', 'temporary']) }) },
);
