import { dataArrayParams } from '@/lib/http/analytics/data-query-params';
import { jsonResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { breakdownQuerySchema, metricIdParams } from '@/lib/schemas/data-api';
import { metricBreakdown } from '@/lib/services/analytics/data-api';

export const dynamic = 'force-dynamic';

// GET /data/v1/metrics/{METRIC_ID}/breakdown – the metric per value of one dimension, paged
export const GET = withApi(
  async ({ request, params, query }) => jsonResponse(await metricBreakdown(params.metricId, { ...dataArrayParams(request), ...query })),
  { params: metricIdParams, query: breakdownQuerySchema },
);
