import { servePlayerScript } from '@/lib/http/player/player-responses';

export const dynamic = 'force-dynamic';

// The mux-player build the player page loads, from this server's node_modules.
export const GET = servePlayerScript;
export const HEAD = servePlayerScript;
