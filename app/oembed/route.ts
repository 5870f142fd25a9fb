import { oembedPreflight, serveOembed } from '@/lib/http/player/player-responses';

export const dynamic = 'force-dynamic';

// GET {PLAYER_URL}/oembed?url={player page link}&maxwidth=&maxheight=&format=json
export const GET = serveOembed;
export const OPTIONS = oembedPreflight;
