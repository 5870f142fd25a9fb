import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { assetJson } from '@/lib/services/master/master-links';
import { assetSettingsSchema } from '@/lib/schemas/asset-settings';
import { pageQuerySchema } from '@/lib/schemas/common';
import { createAsset } from '@/lib/services/assets/create-asset';
import { ASSET_STATUSES, searchAssets } from '@/lib/services/dashboard/search-assets';

export const dynamic = 'force-dynamic';

const DEFAULT_LIMIT = 25;

const searchQuerySchema = pageQuerySchema.extend({
  search: z.string().max(200).optional(),
  status: z.enum(ASSET_STATUSES).optional(),
});

// GET /api/dashboard/assets – the asset table: search, status filter, page numbers and a total
export const GET = withDashboard(
  async ({ query }) => {
    const page = query.page ?? 1;
    const limit = query.limit ?? DEFAULT_LIMIT;
    const { assets, total, preparing } = await searchAssets({ search: query.search, status: query.status, page, limit });
    return dataResponse(assets.map((asset) => assetJson(asset)), 200, { total, preparing, page, limit });
  },
  { query: searchQuerySchema },
);

// POST /api/dashboard/assets – create an asset from a URL (same body and validation as the API)
export const POST = withDashboard(
  async ({ body }) => dataResponse(assetJson(await createAsset({ body })), 201),
  { body: assetSettingsSchema },
);
