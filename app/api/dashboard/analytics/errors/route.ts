import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { analyticsQuery } from '@/lib/schemas/dashboard-analytics';
import { analyticsErrors } from '@/lib/services/dashboard/analytics-errors';

export const dynamic = 'force-dynamic';

// GET /api/dashboard/analytics/errors?timeframe=24:hours – the analytics page's playback errors
export const GET = withDashboard(async ({ query }) => dataResponse(await analyticsErrors(query.timeframe)), { query: analyticsQuery });
