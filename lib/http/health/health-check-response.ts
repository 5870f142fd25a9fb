import { serverState } from '../../runtime/server-state';
import { checkHealth } from '../../services/health/check-health';

// GET /api/health's answer (lib/server/health-listener.ts gives the same one on worker nodes). The
// route runs inside the Next.js bundle; what the server entry knows reaches it through the runtime.
export const healthCheckResponse = async (): Promise<Response> => {
  const report = await checkHealth(serverState());
  return Response.json(
    { status: report.ok ? 'ok' : 'unavailable', checks: report.checks },
    { status: report.ok ? 200 : 503, headers: { 'cache-control': 'no-store' } },
  );
};
