import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { breakdownQuery } from '@/lib/schemas/dashboard-analytics';
import { analyticsBreakdown } from '@/lib/services/dashboard/analytics-breakdown';

export const dynamic = 'force-dynamic';

// GET /api/dashboard/analytics/breakdown?timeframe=24:hours&group_by=browser – one breakdown table
export const GET = withDashboard(async ({ query }) => dataResponse(await analyticsBreakdown(query.timeframe, query.group_by)), {
  query: breakdownQuery,
});
