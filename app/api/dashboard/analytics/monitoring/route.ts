import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { analyticsMonitoring } from '@/lib/services/dashboard/analytics-monitoring';

export const dynamic = 'force-dynamic';

// GET /api/dashboard/analytics/monitoring – where the preview player's mux-embed sends its beacons
export const GET = withDashboard(async () => dataResponse(analyticsMonitoring()));
