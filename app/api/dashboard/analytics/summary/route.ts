import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { analyticsQuery } from '@/lib/schemas/dashboard-analytics';
import { analyticsSummary } from '@/lib/services/dashboard/analytics-summary';

export const dynamic = 'force-dynamic';

// GET /api/dashboard/analytics/summary?timeframe=24:hours – the analytics page's headline numbers
export const GET = withDashboard(async ({ query }) => dataResponse(await analyticsSummary(query.timeframe)), { query: analyticsQuery });
