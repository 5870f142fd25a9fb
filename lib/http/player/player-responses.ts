import { getEnv } from '../../env';
import { parseWith } from '../parse-request';
import { jsonResponse } from '../respond';
import { toErrorResponse } from '../with-api';
import { oembedQuerySchema } from '../../schemas/player-params';
import { oembedFor } from '../../services/player/oembed';
import { playerPageFor, type PlayerPageCaching } from '../../services/player/player-page';
import { loadPlayerScript } from '../../services/player/player-script';

// The player host's three answers: the embed page, the mux-player script it loads, and oEmbed.
// None needs a session or an access token.

const CACHE_CONTROL: Record<PlayerPageCaching, string> = {
  public: 'public, max-age=60',
  none: 'private, no-store',
};

// Where the page may be framed. Never X-Frame-Options: it would override the list.
const frameAncestors = (): string => `frame-ancestors ${getEnv().playerFrameAncestors}`;

export const servePlayerPage = async (request: Request, context: { params: Promise<{ playbackId: string }> }): Promise<Response> => {
  try {
    const { playbackId } = await context.params;
    const page = await playerPageFor(playbackId, new URL(request.url).searchParams);
    return new Response(request.method === 'HEAD' ? null : page.html, {
      status: page.status,
      headers: {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': CACHE_CONTROL[page.caching],
        'content-security-policy': frameAncestors(),
        // Tokens ride in the page's query string: other origins learn only where the request came from.
        'referrer-policy': 'strict-origin-when-cross-origin',
        'x-content-type-options': 'nosniff',
      },
    });
  } catch (error) {
    return toErrorResponse(error, request);
  }
};

export const servePlayerScript = async (request: Request): Promise<Response> => {
  try {
    const script = await loadPlayerScript();
    const etag = `"${script.hash}"`;
    const versioned = new URL(request.url).searchParams.get('v') === script.hash;
    const headers = {
      'content-type': 'text/javascript; charset=utf-8',
      // The versioned URL names this exact file; an unversioned one may change with an upgrade.
      'cache-control': versioned ? 'public, max-age=31536000, immutable' : 'public, max-age=300',
      etag,
      'access-control-allow-origin': '*',
      'x-content-type-options': 'nosniff',
    };
    if (request.headers.get('if-none-match') === etag) return new Response(null, { status: 304, headers });
    return new Response(request.method === 'HEAD' ? null : new Uint8Array(script.body), { headers: { ...headers, 'content-length': String(script.body.length) } });
  } catch (error) {
    return toErrorResponse(error, request);
  }
};

const CORS = { 'access-control-allow-origin': '*' };

export const serveOembed = async (request: Request): Promise<Response> => {
  try {
    const query = parseWith(oembedQuerySchema, Object.fromEntries(new URL(request.url).searchParams), 'query');
    if (query.format === 'xml') {
      return jsonResponse({ error: { type: 'not_implemented', messages: ['Only format=json is supported'] } }, 501, CORS);
    }
    return jsonResponse(await oembedFor(query), 200, { ...CORS, 'cache-control': 'public, max-age=300' });
  } catch (error) {
    const response = toErrorResponse(error, request);
    response.headers.set('access-control-allow-origin', '*');
    return response;
  }
};

export const oembedPreflight = (): Response =>
  new Response(null, { status: 204, headers: { ...CORS, 'access-control-allow-methods': 'GET, HEAD, OPTIONS', 'access-control-max-age': '86400' } });
