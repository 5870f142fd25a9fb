import { Api, type Json } from '../support/api';
import { beaconBody, FIREFOX_UA, postBeacon, simulatedView, wholeViewBeacons, type BeaconAnswer } from '../support/beacons';
import { isCluster, type AccessToken, type KeyframeServer } from '../support/keyframe-server';
import { disposeKeyframe, expect, restartKeyframe, startKeyframe, test } from '../support/test';

// The beacon collector (mux-api-2.md §7) on POST / of Keyframe's origin, behind a playback worker
// (PLAYBACK_WORKERS=1) as production runs it: bodies exactly as mux-embed sends them, refusals in
// the API's error shape, a per-client rate limit, views read back through the Data API, and the
// views still pending at SIGTERM written before the process exits.

test.describe.configure({ mode: 'serial' });
test.skip(isCluster(), 'one process behind its playback worker; the cluster runs data-api.spec');

const PLAYBACK_ID = 'Collector0000000000000000000000000000000001';

let server: KeyframeServer;
let token: AccessToken;
let api: Api;

test.beforeAll(async () => {
  server = await startKeyframe({
    label: 'collector',
    // 127.0.0.10 plays a reverse proxy in front of Keyframe.
    env: { PLAYBACK_WORKERS: '1', DATA_BEACON_RATE_PER_SECOND: '1', DATA_BEACON_RATE_BURST: '5', TRUSTED_PROXIES: '127.0.0.10' },
  });
  token = await server.createToken();
  api = new Api(server.baseUrl, token);
});

test.afterAll(async () => {
  await disposeKeyframe(server);
});

/** The views the Data API lists for a filter, once `count` of them are written (the collector writes every second). */
const viewsWhen = async (filter: string, count: number): Promise<Json[]> => {
  let views: Json[] = [];
  await expect
    .poll(
      async () => {
        const response = await api.request('GET', `/data/v1/video-views?filters[]=${encodeURIComponent(filter)}&limit=100`);
        views = response.json?.data ?? [];
        return views.length;
      },
      { timeout: 10_000 },
    )
    .toBe(count);
  return views;
};

const detail = async (id: string): Promise<Json> => (await api.request('GET', `/data/v1/video-views/${id}`)).json.data;

test('a mux-embed view is answered 200 with open CORS at once and readable through the Data API within seconds', async () => {
  const [first, second] = wholeViewBeacons({ viewId: 'collector-view-1', sourceUrl: `http://localhost/${PLAYBACK_ID}.m3u8?token=SECRET`, startupMs: 450, watchMs: 8_000, playingMs: 7_000, rebufferMs: 400, title: 'Collector one' });
  const started = performance.now();
  const answer = await postBeacon(server, first!, { from: '127.0.0.2' });
  expect(performance.now() - started).toBeLessThan(1_000);
  expect(answer.status).toBe(200);
  expect(answer.headers['access-control-allow-origin']).toBe('*');
  // sendBeacon's content type, as on unload.
  expect((await postBeacon(server, second!, { from: '127.0.0.2', contentType: 'text/plain;charset=UTF-8' })).status).toBe(200);

  const [view] = await viewsWhen('video_title:Collector one', 1);
  expect(view).toMatchObject({ video_title: 'Collector one', watch_time: 8_000, playback_failure: false, viewer_application_name: 'Chrome', viewer_os_family: 'Linux' });
  const full = await detail(view.id);
  expect(full).toMatchObject({
    view_id: 'collector-view-1',
    time_to_first_frame: 450,
    view_playing_time: '7000',
    buffering_duration: 400,
    player_source_url: `http://localhost/${PLAYBACK_ID}.m3u8`,
    page_url: 'http://page.example/watch',
    player_software: null,
    player_mux_plugin_name: 'mux-player',
    mux_embed: 'mux-embed',
  });
  expect(JSON.stringify(full)).not.toContain('SECRET');
  expect(full.events.map((event: Json) => event.name)).toEqual(['playerready', 'viewstart', 'play', 'playing', 'hb', 'viewend']);
});

test('application/json is taken too; a preflight is answered; a beacon sent again counts once', async () => {
  const preflight = await postBeacon(server, '', { method: 'OPTIONS', from: '127.0.0.3' });
  expect(preflight.status).toBe(204);
  expect(preflight.headers['access-control-allow-origin']).toBe('*');
  expect(preflight.headers['access-control-allow-methods']).toContain('POST');

  const view = simulatedView({ viewId: 'collector-retry', sourceUrl: 'https://elsewhere.example/video.mp4', videoTitle: 'Collector retry' });
  const body = beaconBody([view.event('viewstart'), view.event('play'), view.event('rebufferstart'), view.event('rebufferend')]);
  for (let attempt = 0; attempt < 3; attempt += 1) expect((await postBeacon(server, body, { from: '127.0.0.3', contentType: 'application/json', userAgent: FIREFOX_UA })).status).toBe(200);
  const [stored] = await viewsWhen('video_title:Collector retry', 1);
  const full = await detail(stored.id);
  expect(full).toMatchObject({ buffering_count: 1, viewer_application_name: 'Firefox', viewer_os_family: 'Windows', asset_id: null, playback_id: null });
  expect(full.events).toHaveLength(4);
});

test('malformed bodies are refused in the API error shape, and the views around them are kept', async () => {
  const good = (viewId: string, title: string) => {
    const view = simulatedView({ viewId, sourceUrl: 'x', videoTitle: title });
    return beaconBody([view.event('viewstart')]);
  };
  expect((await postBeacon(server, good('around-1', 'Around'), { from: '127.0.0.4' })).status).toBe(200);
  const refusals: Array<[string, string | Buffer, number]> = [
    ['not JSON', '{"events":[{"e":', 400],
    ['no events', '{"metadata":{}}', 400],
    ['an event without view_id', '{"events":[{"e":"hb","xsqno":1}]}', 400],
    ['301 events', JSON.stringify({ events: Array.from({ length: 301 }, (_, index) => ({ e: 'hb', xid: 'many', xsqno: index })) }), 400],
    ['over 512 KiB', Buffer.alloc(600 * 1024, 'a'), 413],
  ];
  for (const [name, body, status] of refusals) {
    const answer = await postBeacon(server, body, { from: '127.0.0.5' }).catch((error: Error): BeaconAnswer => ({ status: -1, headers: {}, body: error.message }));
    expect(answer.status, name).toBe(status);
    expect(answer.headers['access-control-allow-origin'], name).toBe('*');
    const error = JSON.parse(answer.body).error;
    expect(error.type, name).toBe(status === 413 ? 'payload_too_large' : 'invalid_parameters');
    expect(error.messages.length, name).toBeGreaterThan(0);
  }
  expect((await postBeacon(server, good('around-2', 'Around'), { from: '127.0.0.6' })).status).toBe(200);
  expect((await viewsWhen('video_title:Around', 2)).length).toBe(2);
});

test('each client has its own rate limit (its address, passed on by the playback worker): 429 past the burst', async () => {
  const body = (index: number) => {
    const view = simulatedView({ viewId: `rate-${index}`, sourceUrl: 'x', videoTitle: 'Rate' });
    return beaconBody([view.event('viewstart')]);
  };
  const statuses: number[] = [];
  for (let index = 0; index < 7; index += 1) statuses.push((await postBeacon(server, body(index), { from: '127.0.0.7' })).status);
  expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
  expect(statuses.slice(5)).toContain(429);
  const refused = await postBeacon(server, body(99), { from: '127.0.0.7' });
  expect(refused.status).toBe(429);
  expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect((await postBeacon(server, body(100), { from: '127.0.0.8' })).status).toBe(200);
});

test('X-Forwarded-For names the client only when a trusted proxy (TRUSTED_PROXIES) sends it', async () => {
  const body = (index: number) => beaconBody([simulatedView({ viewId: `proxied-${index}`, sourceUrl: 'x', videoTitle: 'Proxied' }).event('viewstart')]);
  // From an untrusted peer the header is ignored: a new claimed address per beacon does not escape the limit.
  const spoofed: number[] = [];
  for (let index = 0; index < 7; index += 1) spoofed.push((await postBeacon(server, body(index), { from: '127.0.0.9', forwardedFor: `198.51.100.${index + 1}` })).status);
  expect(spoofed.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
  expect(spoofed.slice(5)).toContain(429);
  // Through the trusted proxy each forwarded client has a limit of its own, and the proxy's own is untouched.
  const viaProxy = (index: number, client: string) => postBeacon(server, body(100 + index), { from: '127.0.0.10', forwardedFor: client });
  const first: number[] = [];
  for (let index = 0; index < 7; index += 1) first.push((await viaProxy(index, '203.0.113.1')).status);
  expect(first.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
  expect(first.slice(5)).toContain(429);
  // The proxy appends the peer it saw; what the client put left of it is not believed.
  expect((await viaProxy(7, '203.0.113.3, 203.0.113.1')).status).toBe(429);
  expect((await viaProxy(8, '203.0.113.2')).status).toBe(200);
  expect((await viaProxy(9, '203.0.113.1, 203.0.113.4')).status).toBe(200);
});

test('views received just before SIGTERM are written before the process exits', async () => {
  const bodies = Array.from({ length: 4 }, (_, index) => {
    const view = simulatedView({ viewId: `shutdown-${index}`, sourceUrl: 'x', videoTitle: 'Shutdown' });
    return beaconBody([view.event('viewstart'), view.event('play')]);
  });
  const statuses = await Promise.all(bodies.map((body, index) => postBeacon(server, body, { from: `127.0.0.${20 + index}` }).then((answer) => answer.status)));
  expect(statuses).toEqual([200, 200, 200, 200]);
  await server.stop();
  server = await restartKeyframe(server);
  api = new Api(server.baseUrl, token);
  expect((await viewsWhen('video_title:Shutdown', 4)).length).toBe(4);
});
