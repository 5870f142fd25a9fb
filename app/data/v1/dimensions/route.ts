import { jsonResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { listDimensions } from '@/lib/services/analytics/data-dimensions';

export const dynamic = 'force-dynamic';

// GET /data/v1/dimensions – the dimensions views can be filtered and broken down by
export const GET = withApi(async () => jsonResponse(listDimensions()));
