import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { idParam } from '@/lib/schemas/common';
import { assetJson } from '@/lib/services/master/master-links';
import { setMasterAccess } from '@/lib/services/master/set-master-access';

export const dynamic = 'force-dynamic';

// PUT /video/v1/assets/{ASSET_ID}/master-access – request (temporary) or remove (none) the master download
export const PUT = withApi(
  async ({ params, body }) => dataResponse(assetJson(await setMasterAccess({ assetId: params.assetId, masterAccess: body.master_access }))),
  { params: z.object({ assetId: idParam('Asset') }), body: z.object({ master_access: z.enum(['none', 'temporary']) }) },
);
