import { dataArrayParams } from '@/lib/http/analytics/data-query-params';
import { jsonResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { listErrors } from '@/lib/services/analytics/data-errors';

export const dynamic = 'force-dynamic';

// GET /data/v1/errors – the playback errors of the views, most frequent first
export const GET = withApi(async ({ request }) => jsonResponse(await listErrors(dataArrayParams(request))));
