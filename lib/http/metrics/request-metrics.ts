import type { ServerResponse } from 'node:http';
import { INIT_FILE } from '../../media/names';
import { recordHttpRequest, type RouteClass } from '../../metrics/record';
import type { PlaybackPath } from '../serving/playback-paths';

// Counts every HTTP request the server answers, by route class and status, with its duration. The
// playback host classifies its own paths (it has matched them already); everything else is
// classified here from the path alone.

export type { RouteClass } from '../../metrics/record';

// nginx's code for a request whose client closed the connection before any answer was sent.
const CLIENT_CLOSED_REQUEST = 499;

const API_PREFIXES = ['/video/v1/', '/system/v1/', '/upload/'];
const DASHBOARD_PREFIXES = ['/api/dashboard/', '/api/auth/', '/_next/', '/assets', '/uploads', '/webhooks', '/access-tokens', '/encoding-load', '/sign-in', '/setup'];

const pathOf = (url: string): string => {
  const queryStart = url.indexOf('?');
  return queryStart === -1 ? url : url.slice(0, queryStart);
};

const startsWithAny = (path: string, prefixes: readonly string[]): boolean => prefixes.some((prefix) => path.startsWith(prefix));

/** The class of a request the playback host did not take (API, dashboard, /metrics, …). */
export const applicationRouteClass = (url: string | undefined): RouteClass => {
  const path = pathOf(url ?? '/');
  if (path === '/metrics') return 'metrics';
  if (path === '/api/health') return 'health';
  if (path === '/api/encoding-load' || startsWithAny(path, API_PREFIXES)) return 'api';
  if (path === '/' || path === '/favicon.ico' || startsWithAny(path, DASHBOARD_PREFIXES)) return 'dashboard';
  return 'other';
};

export const playbackRouteClass = (path: PlaybackPath): RouteClass => {
  switch (path.kind) {
    case 'multivariant':
    case 'rendition-playlist':
      return 'playback_playlist';
    case 'rendition-file':
      return path.file === INIT_FILE ? 'playback_init' : 'playback_segment';
    case 'image':
      return 'playback_image';
    case 'static-rendition':
    case 'text-track':
      return 'playback_static';
    case 'unknown':
      return 'playback_other';
  }
};

/**
 * Counts the request once its response is over: sent, or abandoned by the client (499 when no
 * answer had started). Synchronous and allocation-light: the cached-playlist path calls it too.
 */
export const countHttpRequest = (response: ServerResponse, route: RouteClass): void => {
  const startedAt = performance.now();
  response.on('close', () => {
    const status = response.headersSent ? response.statusCode : CLIENT_CLOSED_REQUEST;
    recordHttpRequest(route, status, (performance.now() - startedAt) / 1000);
  });
};
