import { PLAYLIST_MAX_AGE_SECONDS, type Cacheability } from '../../services/playback/resolve-playback';

// Headers of the playback host (the stream origin): open CORS for players on any site, and how
// long each kind of answer may be kept (see Cacheability).

// On every answer (the methods and headers a player may use are the preflight's business only).
export const PLAYBACK_CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'Content-Length, Content-Range, Content-Disposition',
} as const;

export const PLAYBACK_PREFLIGHT_HEADERS = {
  ...PLAYBACK_CORS_HEADERS,
  'access-control-allow-methods': 'GET, HEAD, OPTIONS',
  'access-control-allow-headers': 'Range, Content-Type',
  'access-control-max-age': '86400',
} as const;

const YEAR_SECONDS = 31_536_000;

// A signed answer is kept no longer than the token (or proof) that opened it stays valid, so a
// cache never serves it past the moment the origin would refuse it.
const cacheControl = ({ scope, expiresAt }: Cacheability, maxAge: number, extra = '') => {
  const left = expiresAt === null ? maxAge : Math.max(0, Math.min(maxAge, expiresAt - Math.floor(Date.now() / 1000)));
  return `${scope}, max-age=${left}${extra}`;
};

// Segments, init segments and images never change under their URL.
export const immutableCacheControl = (cacheability: Cacheability) => cacheControl(cacheability, YEAR_SECONDS, ', immutable');
// A redirect to the bucket's public URL: kept for a while, not for ever, since an operator may
// move the bucket or the CDN in front of it.
export const redirectCacheControl = (cacheability: Cacheability) => cacheControl(cacheability, 3600);
export const playlistCacheControl = (cacheability: Cacheability) => cacheControl(cacheability, PLAYLIST_MAX_AGE_SECONDS);
// Storyboard VTT/JSON hold absolute URLs on STREAM_URL, which an operator may change.
export const storyboardTextCacheControl = (cacheability: Cacheability) => cacheControl(cacheability, 3600);

// MP4/M4A downloads can be deleted and made again, so they are not immutable; an hour bounds how
// long a deleted one may still be served by a cache in front.
export const staticFileCacheControl = (cacheability: Cacheability) => cacheControl(cacheability, 3600);

export const CONTENT_TYPES = {
  m3u8: 'application/vnd.apple.mpegurl',
  mp4: 'video/mp4',
  // What Mux answers for audio.m4a (its API spec); browsers sniff the content either way.
  m4a: 'audio/m4a',
  jpg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
  vtt: 'text/vtt; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  json: 'application/json; charset=utf-8',
} as const;
