import { dataArrayParams } from '@/lib/http/analytics/data-query-params';
import { jsonResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { dimensionIdParams, dimensionValuesQuerySchema } from '@/lib/schemas/data-api';
import { listDimensionValues } from '@/lib/services/analytics/data-dimensions';

export const dynamic = 'force-dynamic';

// GET /data/v1/dimensions/{DIMENSION_ID} – the values one dimension takes, with their view counts
export const GET = withApi(
  async ({ request, params, query }) => jsonResponse(await listDimensionValues(params.dimensionId, { ...dataArrayParams(request), ...query })),
  { params: dimensionIdParams, query: dimensionValuesQuerySchema },
);
