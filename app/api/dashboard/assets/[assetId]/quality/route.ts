import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { idParam } from '@/lib/schemas/common';
import { getQualityReport, requestQualityReport } from '@/lib/services/quality/quality-report-requests';

export const dynamic = 'force-dynamic';

const params = z.object({ assetId: idParam('Asset') });

// GET /api/dashboard/assets/{ASSET_ID}/quality – the asset page's quality report
export const GET = withDashboard(async ({ params }) => dataResponse(await getQualityReport({ assetId: params.assetId })), { params });

// POST /api/dashboard/assets/{ASSET_ID}/quality – the asset page's "Measure quality"
export const POST = withDashboard(async ({ params }) => dataResponse(await requestQualityReport({ assetId: params.assetId }), 202), { params });
