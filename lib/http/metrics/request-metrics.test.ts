import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { metricSet } from '../../metrics/metric-set';
import { matchPlaybackPath } from '../serving/playback-paths';
import { applicationRouteClass, countHttpRequest, playbackRouteClass, type RouteClass } from './request-metrics';

const ID = 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0';

describe('playbackRouteClass', () => {
  test.each<[string, RouteClass]>([
    [`/${ID}.m3u8`, 'playback_playlist'],
    [`/${ID}/540p.m3u8`, 'playback_playlist'],
    [`/${ID}/audio.m3u8`, 'playback_playlist'],
    [`/${ID}/540p/12.m4s`, 'playback_segment'],
    [`/${ID}/audio/3.m4s`, 'playback_segment'],
    [`/${ID}/540p/init.mp4`, 'playback_init'],
    [`/${ID}/thumbnail.webp`, 'playback_image'],
    [`/${ID}/animated.gif`, 'playback_image'],
    [`/${ID}/storyboard.vtt`, 'playback_image'],
    [`/${ID}/poster.jpg`, 'playback_other'],
    [`/${ID}/highest.mp4`, 'playback_static'],
    [`/${ID}/540p/segment.ts`, 'playback_other'],
  ])('%s → %s', (path, routeClass) => {
    const matched = matchPlaybackPath(path);
    expect(matched).not.toBeNull();
    expect(playbackRouteClass(matched!)).toBe(routeClass);
  });
});

describe('applicationRouteClass', () => {
  test.each<[string | undefined, RouteClass]>([
    ['/metrics', 'metrics'],
    ['/metrics?format=text', 'metrics'],
    ['/api/health', 'health'],
    ['/api/health?verbose=1', 'health'],
    ['/video/v1/assets', 'api'],
    [`/video/v1/assets/${ID}/playback-ids`, 'api'],
    ['/system/v1/signing-keys', 'api'],
    [`/upload/${ID}?token=abc`, 'api'],
    ['/api/encoding-load', 'api'],
    ['/', 'dashboard'],
    ['/?page=2', 'dashboard'],
    ['/assets', 'dashboard'],
    [`/assets/${ID}`, 'dashboard'],
    ['/uploads', 'dashboard'],
    ['/webhooks', 'dashboard'],
    ['/access-tokens', 'dashboard'],
    ['/encoding-load', 'dashboard'],
    ['/sign-in', 'dashboard'],
    ['/setup', 'dashboard'],
    ['/api/dashboard/assets', 'dashboard'],
    ['/api/auth/session', 'dashboard'],
    ['/_next/static/chunks/main.js', 'dashboard'],
    ['/favicon.ico', 'dashboard'],
    ['/metrics/extra', 'other'],
    ['/api/healthz', 'other'],
    ['/api/unknown', 'other'],
    ['/video/v2/assets', 'other'],
    ['/wp-login.php', 'other'],
    [undefined, 'dashboard'],
  ])('%s → %s', (url, routeClass) => {
    expect(applicationRouteClass(url)).toBe(routeClass);
  });
});

describe('countHttpRequest on a real server', () => {
  let server: http.Server;
  let origin: string;
  const tally = () => metricSet().httpRequests;

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      countHttpRequest(response, request.url === '/hang' ? 'other' : 'api');
      if (request.url === '/hang') return; // never answered: the client gives up
      response.writeHead(request.url === '/missing' ? 404 : 200).end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const waitFor = async (condition: () => boolean) => {
    for (let tries = 0; tries < 100 && !condition(); tries++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(condition()).toBe(true);
  };

  test('counts each answered request once, by status, over keep-alive connections', async () => {
    const ok = tally().countOf('api', 200);
    const missing = tally().countOf('api', 404);
    for (let i = 0; i < 3; i++) await (await fetch(`${origin}/ok`)).text();
    await (await fetch(`${origin}/missing`)).text();
    await waitFor(() => tally().countOf('api', 200) === ok + 3 && tally().countOf('api', 404) === missing + 1);
    const text = tally().render();
    expect(text).toMatch(/^keyframe_http_request_duration_seconds_count\{route="api"\} \d+$/m);
  });

  test('a client that gives up before any answer counts as 499', async () => {
    const before = tally().countOf('other', 499);
    const controller = new AbortController();
    const request = fetch(`${origin}/hang`, { signal: controller.signal }).catch(() => 'aborted');
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    expect(await request).toBe('aborted');
    await waitFor(() => tally().countOf('other', 499) === before + 1);
  });
});
