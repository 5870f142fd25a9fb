import { healthCheckResponse } from '@/lib/http/health/health-check-response';

export const dynamic = 'force-dynamic';

// GET /api/health – 200 once migrations are applied and ffmpeg/ffprobe work, 503 with the reason otherwise.
export const GET = (): Promise<Response> => healthCheckResponse();
