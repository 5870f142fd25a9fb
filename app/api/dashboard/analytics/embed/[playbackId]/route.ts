import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { idParam } from '@/lib/schemas/common';
import { embedCodeFor } from '@/lib/services/player/embed-code';

export const dynamic = 'force-dynamic';

const params = z.object({ playbackId: idParam('Playback') });

// GET /api/dashboard/analytics/embed/{PLAYBACK_ID} – the player page's URL and <iframe> code
export const GET = withDashboard(async ({ params }) => dataResponse(embedCodeFor(params.playbackId)), { params });
