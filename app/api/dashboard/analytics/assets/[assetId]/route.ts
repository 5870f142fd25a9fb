import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { idParam } from '@/lib/schemas/common';
import { analyticsQuery } from '@/lib/schemas/dashboard-analytics';
import { analyticsSummary } from '@/lib/services/dashboard/analytics-summary';

export const dynamic = 'force-dynamic';

const params = z.object({ assetId: idParam('Asset') });

// GET /api/dashboard/analytics/assets/{ASSET_ID}?timeframe=30:days – the asset page's view numbers
export const GET = withDashboard(
  async ({ params, query }) => dataResponse(await analyticsSummary(query.timeframe, [`asset_id:${params.assetId}`])),
  { params, query: analyticsQuery },
);
