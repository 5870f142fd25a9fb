import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { analyticsQuery } from '@/lib/schemas/dashboard-analytics';
import { analyticsSeries } from '@/lib/services/dashboard/analytics-series';

export const dynamic = 'force-dynamic';

// GET /api/dashboard/analytics/timeseries?timeframe=24:hours – the analytics page's charts
export const GET = withDashboard(async ({ query }) => dataResponse(await analyticsSeries(query.timeframe)), { query: analyticsQuery });
