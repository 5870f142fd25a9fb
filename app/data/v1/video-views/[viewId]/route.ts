import { jsonResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { videoViewIdParams } from '@/lib/schemas/data-api';
import { getVideoView } from '@/lib/services/analytics/data-api';

export const dynamic = 'force-dynamic';

// GET /data/v1/video-views/{VIDEO_VIEW_ID} – one view with its events
export const GET = withApi(async ({ params }) => jsonResponse(await getVideoView(params.viewId)), { params: videoViewIdParams });
