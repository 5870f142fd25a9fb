import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { viewersNow } from '@/lib/services/analytics/data-api';

export const dynamic = 'force-dynamic';

// GET /api/dashboard/analytics/viewers-now – views with a beacon in the last minute; polled
export const GET = withDashboard(async () => dataResponse(await viewersNow()));
