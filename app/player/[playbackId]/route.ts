import { servePlayerPage } from '@/lib/http/player/player-responses';

export const dynamic = 'force-dynamic';

// GET {PLAYER_URL}/player/{PLAYBACK_ID}?autoplay=muted&… – the embeddable player page.
export const GET = servePlayerPage;
export const HEAD = servePlayerPage;
