import { checkHealth } from '@/lib/services/health/check-health';

export const dynamic = 'force-dynamic';

// GET /api/health – 200 once migrations are applied and ffmpeg/ffprobe work, 503 with the reason otherwise.
export const GET = async (): Promise<Response> => {
  const report = await checkHealth();
  return Response.json(
    { status: report.ok ? 'ok' : 'unavailable', checks: report.checks },
    { status: report.ok ? 200 : 503, headers: { 'cache-control': 'no-store' } },
  );
};
