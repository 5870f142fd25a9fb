import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type Mux from '@mux/mux-node';
import type { Page, Request } from '@playwright/test';
import { Api } from '../support/api';
import { startLiveKeyframe, waitForPlaylist, type LiveServer } from '../support/live';
import { publishTestPattern } from '../support/live-publisher';
import { isCluster, type KeyframeServer } from '../support/keyframe-server';
import { createPlayableAsset, expect, test } from '../support/playback';
import { disposeKeyframe, muxClient } from '../support/test';

// The embeddable player page (/player/{playback_id}) with the real @mux/mux-player, served by
// Keyframe itself, in the system Chromium: it plays Keyframe's HLS (the media element advances,
// hls.js fetched the playlist), loads the poster and storyboard, maps the page's parameters,
// plays signed IDs with tokens in the URL and says so when the token is missing or wrong, can be
// framed by another origin, is discoverable through oEmbed, and sends mux-embed beacons to
// Keyframe's own origin (http://localhost:PORT/, the default collection domain).

// Real-time playback must not share two cores with another worker's encodes.
test.use({ cpuLock: 'exclusive' });

let live: LiveServer;
let server: KeyframeServer;
let api: Api;
let mux: Mux;
let publicId: string;
let signedId: string;
let signingKey: { keyId: string; keySecret: string };

const TITLE = 'Sunset <over> "the" bay & more';

const playerUrl = (playbackId: string, query = '') => server.url(`/player/${playbackId}${query ? `?${query}` : ''}`);

type PlayerState = { currentTime: number; paused: boolean; muted: boolean; loop: boolean; error: string | null };

const playerState = (page: Page, frame = page.mainFrame()): Promise<PlayerState | null> =>
  frame.evaluate(() => {
    const player = document.querySelector('mux-player') as
      | (HTMLElement & { currentTime: number; paused: boolean; muted: boolean; loop: boolean; error?: { message?: string } | null })
      | null;
    if (!player) return null;
    return { currentTime: player.currentTime, paused: player.paused, muted: player.muted, loop: player.loop, error: player.error?.message ?? null };
  });

/** Waits until the player's media has played past `seconds`; fails on a player error. */
const waitForPlayback = async (page: Page, seconds: number, frame = page.mainFrame()): Promise<PlayerState[]> => {
  const seen: PlayerState[] = [];
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    const state = await playerState(page, frame);
    if (state) seen.push(state);
    expect(state?.error ?? null, 'mux-player error').toBeNull();
    if (state && state.currentTime >= seconds) return seen;
    await page.waitForTimeout(250);
  }
  throw new Error(`the player did not reach ${seconds} s: ${JSON.stringify(seen.at(-1))}`);
};

const signToken = (playbackId: string, type: 'video' | 'thumbnail' | 'storyboard') => mux.jwt.signPlaybackId(playbackId, { ...signingKey, type });

test.beforeAll(async ({ playbackFixtures, playbackMedia }) => {
  test.setTimeout(240_000);
  // With RTMP ingest, for the live stream's page.
  live = await startLiveKeyframe('player-page');
  server = live.server;
  const token = await server.createToken();
  api = new Api(server.baseUrl, token);
  mux = muxClient(server, token);
  const key = await mux.system.signingKeys.create();
  signingKey = { keyId: key.id, keySecret: key.private_key! };
  await playbackFixtures.ensure('landscape720p');
  const input = playbackMedia.fileUrl(playbackFixtures.file('landscape720p'));
  ({ playbackId: publicId } = await createPlayableAsset(api, input, { meta: { title: TITLE } }));
  const signed = await api.createAsset({ inputs: [{ url: input }], playback_policies: ['signed'] });
  expect((await api.waitForStatus(signed.id, ['ready', 'errored'], 120_000)).status).toBe('ready');
  signedId = signed.playback_ids[0].id;
});

test.afterAll(async () => {
  await disposeKeyframe(server);
});

test('a public asset plays in mux-player: HLS from Keyframe, poster, storyboard, parameters, beacons to localhost:PORT', async ({ page }) => {
  const requests: Request[] = [];
  page.on('request', (request) => requests.push(request));
  const responses: Array<{ url: string; status: number }> = [];
  page.on('response', (response) => responses.push({ url: response.url(), status: response.status() }));
  const statusesOf = (url: string) => responses.filter((entry) => entry.url === url).map((entry) => entry.status);
  const beacon = page.waitForRequest((request) => request.method() === 'POST' && request.url() === `http://localhost:${server.port}/`, {
    timeout: 60_000,
  });
  const response = await page.goto(playerUrl(publicId, 'autoplay=muted&loop&start-time=3&accent-color=%23fa50b5&utm_source=newsletter'));
  expect(response?.status()).toBe(200);
  expect(await page.title()).toBe(TITLE);

  const attributes = await page.locator('mux-player').evaluate((element) => Object.fromEntries([...element.attributes].map((a) => [a.name, a.value])));
  expect(attributes).toMatchObject({
    src: server.url(`/${publicId}.m3u8`),
    poster: server.url(`/${publicId}/thumbnail.webp?time=3`),
    'storyboard-src': server.url(`/${publicId}/storyboard.vtt?format=webp`),
    'stream-type': 'on-demand',
    'beacon-collection-domain': `localhost:${server.port}`,
    'metadata-video-title': TITLE,
    autoplay: 'muted',
    'accent-color': '#fa50b5',
  });
  expect(Object.keys(attributes)).not.toContain('utm_source');

  // mux-player (its hls.js) plays Keyframe's stream from start-time on, muted and looping.
  const states = await waitForPlayback(page, 5);
  // Before the media loads currentTime reads 0; the first position it reports is the start time.
  const firstPosition = states.find((state) => state.currentTime > 0)!.currentTime;
  expect(firstPosition, 'starts at start-time').toBeGreaterThanOrEqual(2.9);
  expect(firstPosition).toBeLessThan(5);
  expect(states.at(-1)).toMatchObject({ paused: false, muted: true, loop: true });
  const fetched = requests.map((request) => request.url());
  expect(fetched).toContain(server.url(`/${publicId}.m3u8`));
  expect(fetched.some((url) => url.startsWith(server.url(`/${publicId}/`)) && url.endsWith('.m4s')), 'segments fetched').toBe(true);

  // The poster and the storyboard (hover previews) are fetched and answered.
  await expect.poll(() => statusesOf(server.url(`/${publicId}/thumbnail.webp?time=3`))).toContain(200);
  await expect.poll(() => statusesOf(server.url(`/${publicId}/storyboard.vtt?format=webp`))).toContain(200);

  // mux-embed reports the view to Keyframe's origin, as a text/plain JSON body naming the source.
  const sent = await beacon;
  expect(sent.headers()['content-type']).toMatch(/^text\/plain/);
  const body = JSON.parse(sent.postData() ?? '{}') as { events?: Array<Record<string, unknown>> };
  expect(body.events?.length).toBeGreaterThan(0);
  expect(body.events!.some((event) => event.vsour === server.url(`/${publicId}.m3u8`) || event.vid === publicId)).toBe(true);
});

test('the page is framed by another origin (frame-ancestors, no X-Frame-Options) and plays there', async ({ page }) => {
  const direct = await fetch(playerUrl(publicId));
  expect(direct.headers.get('content-security-policy')).toBe('frame-ancestors *');
  expect(direct.headers.get('x-frame-options')).toBeNull();
  expect(direct.headers.get('cache-control')).toBe('public, max-age=60');

  const host = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end(`<!doctype html><h1>A blog</h1><iframe id="player" src="${playerUrl(publicId, 'autoplay=muted')}" style="aspect-ratio:16/9;width:640px;border:0" allow="autoplay"></iframe>`);
  });
  await new Promise<void>((resolve) => host.listen(0, 'localhost', resolve));
  try {
    await page.goto(`http://localhost:${(host.address() as AddressInfo).port}/`);
    const frame = await (await page.locator('#player').elementHandle())!.contentFrame();
    expect(frame).toBeTruthy();
    await frame!.waitForSelector('mux-player');
    await waitForPlayback(page, 2, frame!);
  } finally {
    host.closeAllConnections();
    await new Promise((resolve) => host.close(resolve));
  }
});

test('a signed asset plays with playback, thumbnail and storyboard tokens in the URL', async ({ page }) => {
  const [video, thumbnail, storyboard] = await Promise.all([signToken(signedId, 'video'), signToken(signedId, 'thumbnail'), signToken(signedId, 'storyboard')]);
  const responses: Array<{ url: string; status: number }> = [];
  page.on('response', (response) => responses.push({ url: response.url(), status: response.status() }));
  const response = await page.goto(playerUrl(signedId, `autoplay=muted&playback-token=${video}&thumbnail-token=${thumbnail}&storyboard-token=${storyboard}`));
  expect(response?.status()).toBe(200);
  expect(response?.headers()['cache-control']).toBe('private, no-store');
  await waitForPlayback(page, 2);
  const statusOf = (prefix: string) => responses.find((entry) => entry.url.startsWith(server.url(prefix)))?.status;
  expect(statusOf(`/${signedId}.m3u8?token=`)).toBe(200);
  expect(statusOf(`/${signedId}/thumbnail.webp?token=`)).toBe(200);
  await expect.poll(() => statusOf(`/${signedId}/storyboard.vtt?format=webp&token=`)).toBe(200);
});

test('a signed asset without a token, with a bad token, and an unknown playback ID each show a readable message', async ({ page }) => {
  const missing = await page.goto(playerUrl(signedId, 'autoplay=muted'));
  expect(missing?.status()).toBe(200);
  await expect(page.getByRole('alert')).toContainText('This video needs a signed playback token');
  await expect(page.getByRole('alert')).toBeVisible();
  expect(await page.locator('mux-player').count()).toBe(0);

  // A token for another playback ID, and one that is not a token at all (dropped, so "missing").
  const otherToken = await signToken(publicId, 'video');
  const wrong = await page.goto(playerUrl(signedId, `playback-token=${otherToken}`));
  expect(wrong?.status()).toBe(403);
  await expect(page.getByRole('alert')).toContainText('The token was signed for a different playback ID');
  expect(await page.locator('mux-player').count()).toBe(0);

  const unknown = await page.goto(playerUrl('a'.repeat(30)));
  expect(unknown?.status()).toBe(404);
  await expect(page.getByRole('alert')).toContainText('Video not found');
});

test('oEmbed: discovered from the page, answers for a pasted link, refuses foreign links and XML', async ({ page }) => {
  await page.goto(playerUrl(publicId, 'autoplay=muted'));
  const discovery = await page.locator('link[rel="alternate"][type="application/json+oembed"]').getAttribute('href');
  expect(discovery).toBe(server.url(`/oembed?format=json&url=${encodeURIComponent(playerUrl(publicId))}`));

  const pasted = playerUrl(publicId, 'autoplay=muted');
  const answer = await fetch(server.url(`/oembed?url=${encodeURIComponent(pasted)}&maxwidth=480`));
  expect(answer.status).toBe(200);
  expect(answer.headers.get('access-control-allow-origin')).toBe('*');
  const embed = (await answer.json()) as Record<string, unknown>;
  expect(embed).toMatchObject({
    type: 'video',
    version: '1.0',
    provider_name: 'Keyframe',
    title: TITLE,
    width: 480,
    height: 270,
    thumbnail_url: server.url(`/${publicId}/thumbnail.jpg?width=480&height=270`),
    thumbnail_width: 480,
    thumbnail_height: 270,
  });
  expect(embed.html).toBe(
    `<iframe src="${pasted.replace('&', '&amp;')}" title="Sunset &lt;over&gt; &quot;the&quot; bay &amp; more" style="aspect-ratio:16/9;width:100%;border:0" ` +
      'allow="accelerometer; gyroscope; autoplay; encrypted-media; picture-in-picture;" allowfullscreen></iframe>',
  );
  const thumbnail = await fetch(embed.thumbnail_url as string);
  expect(thumbnail.status).toBe(200);
  expect(thumbnail.headers.get('content-type')).toBe('image/jpeg');

  // The html pasted into another page plays there.
  await page.setContent(`<!doctype html>${embed.html as string}`);
  const frame = await (await page.locator('iframe').elementHandle())!.contentFrame();
  await frame!.waitForSelector('mux-player');
  await waitForPlayback(page, 1, frame!);

  expect((await fetch(server.url(`/oembed?url=${encodeURIComponent(`https://elsewhere.example/player/${publicId}`)}`))).status).toBe(404);
  expect((await fetch(server.url(`/oembed?url=${encodeURIComponent(playerUrl('b'.repeat(30)))}`))).status).toBe(404);
  expect((await fetch(server.url(`/oembed?url=${encodeURIComponent(pasted)}&format=xml`))).status).toBe(501);
  expect((await fetch(server.url('/oembed'))).status).toBe(400);
});

test('a live stream\'s playback ID plays live in the page', async ({ page }) => {
  test.skip(isCluster(), 'a broadcast is served only by the node holding its publisher (docs/live.md, Scaling out): live is not in the cluster run');
  const stream = await mux.video.liveStreams.create({ playback_policies: ['public'], new_asset_settings: { playback_policies: ['public'] }, meta: { title: 'Live from the bay' } });
  const playbackId = stream.playback_ids![0]!.id;
  const publisher = publishTestPattern({ ingestUrl: live.rtmpUrl(stream.stream_key!) });
  try {
    await waitForPlaylist(server.url(`/${playbackId}.m3u8`), undefined, 30_000);
    await page.goto(playerUrl(playbackId, 'autoplay=muted'));
    expect(await page.title()).toBe('Live from the bay');
    await expect(page.locator('mux-player')).toHaveAttribute('stream-type', 'live');
    expect(await page.locator('mux-player').getAttribute('storyboard-src')).toBeNull();
    const states = await waitForPlayback(page, 0.5);
    const start = states.at(-1)!.currentTime;
    // Advancing by itself, at the live edge.
    await expect.poll(async () => (await playerState(page))!.currentTime, { timeout: 20_000 }).toBeGreaterThan(start + 2);
  } finally {
    await publisher.stop();
  }
});

test('the mux-player script is served from node_modules, cacheable for good under its versioned URL', async ({ page }) => {
  await page.goto(playerUrl(publicId));
  const src = await page.locator('script[src^="/player/mux-player.js?v="]').getAttribute('src');
  expect(src).toBeTruthy();
  const versioned = await fetch(server.url(src!));
  expect(versioned.status).toBe(200);
  expect(versioned.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  expect(versioned.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  expect((await versioned.text()).length).toBeGreaterThan(500_000);
  const again = await fetch(server.url(src!), { headers: { 'if-none-match': versioned.headers.get('etag')! } });
  expect(again.status).toBe(304);
  expect((await fetch(server.url('/player/mux-player.js'))).headers.get('cache-control')).toBe('public, max-age=300');
  // Defined the custom element.
  expect(await page.evaluate(() => customElements.get('mux-player') !== undefined)).toBe(true);
});
