import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { assetJson } from '@/lib/services/master/master-links';
import { assetSettingsSchema } from '@/lib/schemas/asset-settings';
import { pageQuerySchema } from '@/lib/schemas/common';
import { createAsset } from '@/lib/services/assets/create-asset';
import { listAssets } from '@/lib/services/assets/list-assets';

export const dynamic = 'force-dynamic';

// POST /video/v1/assets – create an asset from a URL
export const POST = withApi(
  async ({ body }) => dataResponse(assetJson(await createAsset({ body })), 201),
  { body: assetSettingsSchema },
);

const listQuerySchema = pageQuerySchema.extend({
  cursor: z.string().min(1).optional(),
  upload_id: z.string().optional(),
  live_stream_id: z.string().optional(),
});

// GET /video/v1/assets – list assets, newest first
export const GET = withApi(
  async ({ query }) => {
    const { assets, nextCursor } = await listAssets({
      limit: query.limit,
      page: query.page,
      cursor: query.cursor,
      uploadId: query.upload_id,
      liveStreamId: query.live_stream_id,
    });
    return dataResponse(assets.map((asset) => assetJson(asset)), 200, nextCursor ? { next_cursor: nextCursor } : {});
  },
  { query: listQuerySchema },
);
