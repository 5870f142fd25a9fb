import type { CacheScope } from '../../services/playback/resolve-playback';

// Headers of the playback host (the stream origin): open CORS for players on any site, and how
// long each kind of answer may be kept. `private` answers (a playback restriction looked at the
// Referer or User-Agent) may be kept by the viewer's browser only, never by a shared cache.

export const PLAYBACK_CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, HEAD, OPTIONS',
  'access-control-allow-headers': 'Range, Content-Type',
  'access-control-expose-headers': 'Content-Length, Content-Range',
} as const;

const YEAR_SECONDS = 31_536_000;

// Segments, init segments and images never change under their URL.
export const immutableCacheControl = (scope: CacheScope) => `${scope}, max-age=${YEAR_SECONDS}, immutable`;
// Playlists are made from the plan, and can change (a background rung completes).
export const playlistCacheControl = (scope: CacheScope) => `${scope}, max-age=10`;
// Storyboard VTT/JSON hold absolute URLs on STREAM_URL, which an operator may change.
export const storyboardTextCacheControl = (scope: CacheScope) => `${scope}, max-age=3600`;

export const CONTENT_TYPES = {
  m3u8: 'application/vnd.apple.mpegurl',
  mp4: 'video/mp4',
  jpg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
  vtt: 'text/vtt; charset=utf-8',
  json: 'application/json; charset=utf-8',
} as const;
