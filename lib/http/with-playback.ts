import { readFile, stat } from 'node:fs/promises';
import type { PlaybackAudience } from '../auth/playback-token';
import type { ImageFile, StoryboardText } from '../services/images/image-file';
import type { PlaybackAccess } from '../services/playback/resolve-playback';
import { isApiError } from './api-error';
import { errorResponse } from './respond';
import { toErrorResponse } from './with-api';

// Playback routes (the stream origin): no API credentials, open CORS for GET, and Mux's delivery
// status codes in the same JSON error shape as the API.

const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, HEAD, OPTIONS',
  'access-control-allow-headers': 'Range, Content-Type',
  'access-control-expose-headers': 'Content-Length, Content-Range',
};

export const PLAYLIST_CACHE_CONTROL = 'public, max-age=10';
export const SEGMENT_CACHE_CONTROL = 'public, max-age=31536000, immutable';

const withCors = (response: Response): Response => {
  for (const [name, value] of Object.entries(CORS_HEADERS)) response.headers.set(name, value);
  return response;
};

type RouteContext = { params: Promise<Record<string, string | string[] | undefined>> };

export const withPlayback =
  (handler: (args: { request: Request; params: Record<string, string | string[] | undefined> }) => Promise<Response>) =>
  async (request: Request, context: RouteContext): Promise<Response> => {
    try {
      return withCors(await handler({ request, params: await context.params }));
    } catch (error) {
      const response = isApiError(error) ? errorResponse(error) : toErrorResponse(error, request);
      response.headers.set('cache-control', 'no-store');
      return withCors(response);
    }
  };

// Mux's players send `token`; mux-node's playback helpers send `TOKEN`.
export const playbackAccess = (request: Request, audience: PlaybackAudience): PlaybackAccess => {
  const query = new URL(request.url).searchParams;
  return {
    token: query.get('token') ?? query.get('TOKEN'),
    proof: query.get('kfp'),
    audience,
    referrer: request.headers.get('referer'),
    userAgent: request.headers.get('user-agent'),
  };
};

export const corsPreflight = async (): Promise<Response> => withCors(new Response(null, { status: 204 }));

export const playlistResponse = (text: string): Response =>
  new Response(text, {
    headers: { 'content-type': 'application/vnd.apple.mpegurl', 'cache-control': PLAYLIST_CACHE_CONTROL },
  });

// Segments and images are a few megabytes at most, so one read into memory is cheaper than a
// stream bridged into a web ReadableStream.
const fileResponse = async (filePath: string, headers: Record<string, string>, request: Request): Promise<Response> => {
  if (request.method === 'HEAD') {
    const { size } = await stat(filePath);
    return new Response(null, { headers: { ...headers, 'content-length': String(size) } });
  }
  const data = await readFile(filePath);
  return new Response(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), {
    headers: { ...headers, 'content-length': String(data.byteLength) },
  });
};

export const mediaFileResponse = (filePath: string, request: Request): Promise<Response> =>
  fileResponse(filePath, { 'content-type': 'video/mp4', 'cache-control': SEGMENT_CACHE_CONTROL }, request);

const IMAGE_CONTENT_TYPES: Record<ImageFile['format'] | StoryboardText['format'], string> = {
  jpg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
  vtt: 'text/vtt; charset=utf-8',
  json: 'application/json; charset=utf-8',
};

// Images of an asset never change (assets are immutable, the file name encodes the parameters).
// Storyboard VTT/JSON hold absolute URLs on STREAM_URL, which an operator may change, so they are
// cached for an hour rather than forever.
export const IMAGE_CACHE_CONTROL = SEGMENT_CACHE_CONTROL;
export const STORYBOARD_TEXT_CACHE_CONTROL = 'public, max-age=3600';

export const imageResponse = async (image: ImageFile | StoryboardText, request: Request): Promise<Response> => {
  const contentType = IMAGE_CONTENT_TYPES[image.format];
  if ('path' in image) return fileResponse(image.path, { 'content-type': contentType, 'cache-control': IMAGE_CACHE_CONTROL }, request);
  const headers = { 'content-type': contentType, 'cache-control': STORYBOARD_TEXT_CACHE_CONTROL };
  return new Response(request.method === 'HEAD' ? null : image.text, { headers });
};
