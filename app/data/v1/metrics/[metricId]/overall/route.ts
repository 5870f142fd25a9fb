import { dataArrayParams } from '@/lib/http/analytics/data-query-params';
import { jsonResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { metricIdParams, overallQuerySchema } from '@/lib/schemas/data-api';
import { metricOverall } from '@/lib/services/analytics/data-api';

export const dynamic = 'force-dynamic';

// GET /data/v1/metrics/{METRIC_ID}/overall – the metric over the timeframe, with totals
export const GET = withApi(
  async ({ request, params, query }) => jsonResponse(await metricOverall(params.metricId, { ...dataArrayParams(request), ...query })),
  { params: metricIdParams, query: overallQuerySchema },
);
