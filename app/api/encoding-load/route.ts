import { jsonResponse } from '@/lib/http/respond';
import { withSessionOrToken } from '@/lib/http/with-session-or-token';
import { encodingLoad } from '@/lib/services/playback/encoding-load';

export const dynamic = 'force-dynamic';

// GET /api/encoding-load – what the just-in-time encoder is doing right now (busy encoders, queue
// by kind, deadline misses, per-rung encode cost); for the dashboard's session and for access tokens.
export const GET = withSessionOrToken(async () => jsonResponse({ data: encodingLoad() }, 200, { 'cache-control': 'no-store' }));
