import { dataArrayParams } from '@/lib/http/analytics/data-query-params';
import { jsonResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { metricIdParams, timeseriesQuerySchema } from '@/lib/schemas/data-api';
import { metricTimeseries } from '@/lib/services/analytics/data-api';

export const dynamic = 'force-dynamic';

// GET /data/v1/metrics/{METRIC_ID}/timeseries – the metric per minute, ten minutes, hour or day
export const GET = withApi(
  async ({ request, params, query }) => jsonResponse(await metricTimeseries(params.metricId, { ...dataArrayParams(request), ...query })),
  { params: metricIdParams, query: timeseriesQuerySchema },
);
