import { z } from 'zod';
import { noContentResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { idParam } from '@/lib/schemas/common';
import { deleteStaticRendition } from '@/lib/services/static-renditions/delete-static-rendition';

export const dynamic = 'force-dynamic';

// DELETE /api/dashboard/assets/{ASSET_ID}/static-renditions/{ID} – the asset page's "Delete MP4"
export const DELETE = withDashboard(
  async ({ params }) => {
    await deleteStaticRendition({ assetId: params.assetId, renditionId: params.staticRenditionId });
    return noContentResponse();
  },
  { params: z.object({ assetId: idParam('Asset'), staticRenditionId: idParam('Static rendition') }) },
);
