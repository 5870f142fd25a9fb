import http from 'node:http';
import { beaconBody, simulatedView } from '../../lib/analytics/mux-embed-beacons';
import type { KeyframeServer } from './keyframe-server';

// Beacons as mux-embed sends them (keys abbreviated, only changed fields after the first event),
// POSTed to a Keyframe server's collector from a chosen loopback address (each address is a
// client of its own for the collector's rate limit).

export { beaconBody, simulatedView };

export const CHROME_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36';
export const FIREFOX_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';

export type BeaconAnswer = { status: number; headers: http.IncomingHttpHeaders; body: string };

export const postBeacon = (
  server: KeyframeServer,
  body: string | Buffer,
  {
    contentType = 'text/plain',
    userAgent = CHROME_UA,
    from = '127.0.0.1',
    method = 'POST',
    forwardedFor,
  }: { contentType?: string; userAgent?: string; from?: string; method?: string; forwardedFor?: string } = {},
): Promise<BeaconAnswer> =>
  new Promise((resolve, reject) => {
    const url = new URL(server.baseUrl);
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: '/',
        method,
        localAddress: from,
        agent: false,
        headers: {
          'content-type': contentType,
          'user-agent': userAgent,
          origin: 'http://page.example',
          'content-length': Buffer.byteLength(body),
          ...(forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    // A server that refuses a large body early may close while it is still being written.
    request.on('error', reject);
    request.end(body);
  });

/** A whole view (viewstart → playing → heartbeat with aggregates → viewend) as beacon bodies. */
export const wholeViewBeacons = ({
  viewId,
  sourceUrl,
  startupMs,
  watchMs,
  playingMs,
  rebufferMs = 0,
  title = 'E2E clip',
  viewer,
  extra,
  end = true,
}: {
  viewId: string;
  sourceUrl: string;
  startupMs: number;
  watchMs: number;
  playingMs: number;
  rebufferMs?: number;
  title?: string;
  viewer?: string;
  extra?: Record<string, string | number | boolean>;
  end?: boolean;
}): string[] => {
  const view = simulatedView({ viewId, sourceUrl, videoTitle: title, muxViewerId: viewer, startedAt: Date.now() - watchMs - 500, extra, pageUrl: 'http://page.example/watch?session=secret' });
  const first = [view.event('playerready'), view.event('viewstart'), view.event('play')];
  view.wait(startupMs);
  first.push(view.event('playing', { view_time_to_first_frame: startupMs }));
  const bodies = [beaconBody(first, view.now)];
  view.wait(watchMs - startupMs);
  const rest = [
    view.event('hb', {
      view_watch_time: watchMs,
      view_playing_time_ms_cumulative: playingMs,
      view_rebuffer_count: rebufferMs > 0 ? 1 : 0,
      view_rebuffer_duration: rebufferMs,
      player_playhead_time: playingMs,
    }),
  ];
  if (end) rest.push(view.event('viewend'));
  bodies.push(beaconBody(rest, view.now));
  return bodies;
};
