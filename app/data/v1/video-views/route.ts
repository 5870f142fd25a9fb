import { dataArrayParams } from '@/lib/http/analytics/data-query-params';
import { jsonResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { videoViewsQuerySchema } from '@/lib/schemas/data-api';
import { listVideoViews } from '@/lib/services/analytics/data-api';

export const dynamic = 'force-dynamic';

// GET /data/v1/video-views – views that ended in the timeframe, latest first
export const GET = withApi(async ({ request, query }) => jsonResponse(await listVideoViews({ ...dataArrayParams(request), ...query })), {
  query: videoViewsQuerySchema,
});
