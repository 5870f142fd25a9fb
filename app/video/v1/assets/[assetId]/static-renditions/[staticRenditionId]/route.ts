import { z } from 'zod';
import { noContentResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { idParam } from '@/lib/schemas/common';
import { deleteStaticRendition } from '@/lib/services/static-renditions/delete-static-rendition';

export const dynamic = 'force-dynamic';

// DELETE /video/v1/assets/{ASSET_ID}/static-renditions/{STATIC_RENDITION_ID} – delete one file
export const DELETE = withApi(
  async ({ params }) => {
    await deleteStaticRendition({ assetId: params.assetId, renditionId: params.staticRenditionId });
    return noContentResponse();
  },
  { params: z.object({ assetId: idParam('Asset'), staticRenditionId: idParam('Static rendition') }) },
);
