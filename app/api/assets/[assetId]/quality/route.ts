import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { idParam } from '@/lib/schemas/common';
import { getQualityReport, requestQualityReport } from '@/lib/services/quality/quality-report-requests';

export const dynamic = 'force-dynamic';

const params = z.object({ assetId: idParam('Asset') });

// GET /api/assets/{ASSET_ID}/quality – the asset's quality report (Keyframe's own, outside Mux's API)
export const GET = withApi(async ({ params }) => dataResponse(await getQualityReport({ assetId: params.assetId })), { params });

// POST /api/assets/{ASSET_ID}/quality – measure it (again); 202 while it is measured
export const POST = withApi(async ({ params }) => dataResponse(await requestQualityReport({ assetId: params.assetId }), 202), { params });
