import type Mux from '@mux/mux-node';
import { Api } from '../support/api';
import { httpGet, parseMediaPlaylist, parseMultivariant } from '../support/hls';
import type { KeyframeServer } from '../support/keyframe-server';
import { createPlayableAsset, expect, test } from '../support/playback';
import { disposeKeyframe, muxClient, startKeyframe } from '../support/test';

// The playback host's delivery semantics, for every kind of file it serves: validators (ETag,
// Last-Modified), conditional requests (304), byte ranges (206/416), HEAD, CORS and Cache-Control,
// as a static file server or a CDN expects them; and the in-memory resolution of playback IDs
// forgetting a deleted asset, playback ID or signing key at once.

let server: KeyframeServer;
let api: Api;
let mux: Mux;
let inputUrl: string;

const IMMUTABLE = 'public, max-age=31536000, immutable';
const PLAYLIST = 'public, max-age=10';

test.beforeAll(async ({ playbackFixtures, playbackMedia }) => {
  test.setTimeout(240_000);
  server = await startKeyframe({ label: 'delivery' });
  const token = await server.createToken();
  api = new Api(server.baseUrl, token);
  mux = muxClient(server, token);
  await playbackFixtures.ensure('landscape1080p');
  inputUrl = playbackMedia.fileUrl(playbackFixtures.file('landscape1080p'));
});

test.afterAll(async () => {
  await disposeKeyframe(server);
});

// Every URL kind of a public asset, with the Cache-Control it must carry.
const playbackUrls = async (playbackId: string): Promise<Array<{ name: string; url: string; cacheControl: string; file: boolean }>> => {
  const multivariantUrl = server.url(`/${playbackId}.m3u8`);
  const multivariant = parseMultivariant((await httpGet(multivariantUrl)).body.toString('utf8'), multivariantUrl);
  const videoUrl = multivariant.variants.find((variant) => !variant.uri.startsWith(`${playbackId}/audio`))!.url;
  const audioUrl = multivariant.media.find((rendition) => rendition.attributes.TYPE === 'AUDIO')!.url!;
  const video = parseMediaPlaylist((await httpGet(videoUrl)).body.toString('utf8'), videoUrl);
  const audio = parseMediaPlaylist((await httpGet(audioUrl)).body.toString('utf8'), audioUrl);
  const image = (name: string) => server.url(`/${playbackId}/${name}`);
  return [
    { name: 'multivariant playlist', url: multivariantUrl, cacheControl: PLAYLIST, file: false },
    { name: 'video playlist', url: videoUrl, cacheControl: PLAYLIST, file: false },
    { name: 'audio playlist', url: audioUrl, cacheControl: PLAYLIST, file: false },
    { name: 'video init', url: video.map!.url, cacheControl: IMMUTABLE, file: true },
    { name: 'video segment', url: video.segments[1]!.url, cacheControl: IMMUTABLE, file: true },
    { name: 'audio init', url: audio.map!.url, cacheControl: IMMUTABLE, file: true },
    { name: 'audio segment', url: audio.segments[0]!.url, cacheControl: IMMUTABLE, file: true },
    { name: 'thumbnail', url: image('thumbnail.jpg?width=320'), cacheControl: IMMUTABLE, file: true },
    { name: 'animated gif', url: image('animated.gif?end=1&width=160'), cacheControl: IMMUTABLE, file: true },
    { name: 'storyboard sprite', url: image('storyboard.jpg'), cacheControl: IMMUTABLE, file: true },
    { name: 'storyboard vtt', url: image('storyboard.vtt'), cacheControl: 'public, max-age=3600', file: false },
  ];
};

test('every playback file kind: validators, 304, byte ranges, 416, HEAD, CORS and Cache-Control', async () => {
  test.setTimeout(180_000);
  const { playbackId } = await createPlayableAsset(api, inputUrl);
  for (const { name, url, cacheControl, file } of await playbackUrls(playbackId)) {
    const first = await httpGet(url);
    expect(first.status, `${name}: ${first.body.toString('utf8').slice(0, 300)}`).toBe(200);
    const full = await httpGet(url); // stored by now: this one comes from disk (or the same plan)
    expect(full.status, name).toBe(200);
    expect(full.body.equals(first.body), `${name}: the same bytes twice`).toBe(true);
    const size = full.body.length;
    const etag = full.headers.get('etag');
    const lastModified = full.headers.get('last-modified');
    expect(size, name).toBeGreaterThan(20);
    expect(full.headers.get('content-length'), name).toBe(String(size));
    expect(etag, name).toMatch(/^"[^"]+"$/);
    expect(full.headers.get('etag'), `${name}: a stable ETag`).toBe(first.headers.get('etag'));
    expect(new Date(lastModified ?? '').getTime(), name).not.toBeNaN();
    expect(full.headers.get('accept-ranges'), name).toBe('bytes');
    expect(full.headers.get('cache-control'), name).toBe(cacheControl);
    expect(full.headers.get('access-control-allow-origin'), name).toBe('*');

    const head = await httpGet(url, { method: 'HEAD' });
    expect(head.status, name).toBe(200);
    expect(head.body.length, name).toBe(0);
    for (const header of ['content-length', 'content-type', 'etag', 'last-modified', 'cache-control', 'accept-ranges']) {
      expect(head.headers.get(header), `${name}: HEAD ${header}`).toBe(full.headers.get(header));
    }

    const middle = await httpGet(url, { headers: { range: 'bytes=3-12' } });
    expect(middle.status, name).toBe(206);
    expect(middle.headers.get('content-range'), name).toBe(`bytes 3-12/${size}`);
    expect(middle.headers.get('content-length'), name).toBe('10');
    expect(middle.body.equals(full.body.subarray(3, 13)), name).toBe(true);
    const suffix = await httpGet(url, { headers: { range: 'bytes=-7' } });
    expect(suffix.status, name).toBe(206);
    expect(suffix.body.equals(full.body.subarray(size - 7)), name).toBe(true);
    const headRange = await httpGet(url, { method: 'HEAD', headers: { range: 'bytes=0-0' } });
    expect([headRange.status, headRange.headers.get('content-length'), headRange.body.length], name).toEqual([206, '1', 0]);
    const beyond = await httpGet(url, { headers: { range: `bytes=${size}-` } });
    expect(beyond.status, name).toBe(416);
    expect(beyond.headers.get('content-range'), name).toBe(`bytes */${size}`);
    // A range of a representation that has changed since (If-Range) gets the whole current body.
    const stale = await httpGet(url, { headers: { range: 'bytes=0-9', 'if-range': '"not-this-one"' } });
    expect([stale.status, stale.body.length], name).toEqual([200, size]);
    const current = await httpGet(url, { headers: { range: 'bytes=0-9', 'if-range': etag! } });
    expect([current.status, current.body.length], name).toEqual([206, 10]);

    const notModified = await httpGet(url, { headers: { 'if-none-match': etag! } });
    expect(notModified.status, name).toBe(304);
    expect(notModified.body.length, name).toBe(0);
    expect(notModified.headers.get('etag'), name).toBe(etag);
    expect(notModified.headers.get('cache-control'), name).toBe(cacheControl);
    expect((await httpGet(url, { headers: { 'if-none-match': `"other", ${etag}` } })).status, name).toBe(304);
    expect((await httpGet(url, { headers: { 'if-none-match': '"other"' } })).status, name).toBe(200);
    // Files are also validated by date; generated text only by its ETag (it can change with the same date).
    const byDate = await httpGet(url, { headers: { 'if-modified-since': lastModified! } });
    expect(byDate.status, name).toBe(file ? 304 : 200);
  }
});

test('a deleted asset or playback ID is 404 at once, though its playlists and segments were just served', async () => {
  const { assetId, playbackId } = await createPlayableAsset(api, inputUrl);
  const second = (await mux.video.assets.createPlaybackId(assetId, { policy: 'public' })).id;
  const pathsOf = (id: string) => [`/${id}.m3u8`, `/${id}/360p.m3u8`, `/${id}/360p/init.mp4`, `/${id}/360p/0.m4s`, `/${id}/thumbnail.jpg`];
  // Twice: the second answer of a playlist comes from memory without a lookup (serve-playback.ts).
  for (const path of [...pathsOf(playbackId), ...pathsOf(second), ...pathsOf(playbackId), ...pathsOf(second)]) {
    expect((await httpGet(server.url(path))).status, path).toBe(200);
  }

  await mux.video.assets.deletePlaybackId(assetId, second);
  for (const path of pathsOf(second)) {
    const response = await httpGet(server.url(path));
    expect(response.status, path).toBe(404);
    expect(response.headers.get('cache-control'), path).toBe('no-store');
    expect(JSON.parse(response.body.toString('utf8')).error.type, path).toBe('not_found');
  }
  for (const path of pathsOf(playbackId)) expect((await httpGet(server.url(path))).status, path).toBe(200);

  await mux.video.assets.delete(assetId);
  for (const path of pathsOf(playbackId)) expect((await httpGet(server.url(path))).status, path).toBe(404);
});

test('signed playback: answers under a playback restriction are private, others public, none cacheable past the token; a deleted signing key stops its tokens at once', async () => {
  const created = await api.createAsset({ inputs: [{ url: inputUrl }], playback_policies: ['signed'] });
  expect((await api.waitForStatus(created.id, ['ready', 'errored'], 120_000)).status).toBe('ready');
  const playbackId = created.playback_ids[0].id as string;
  const key = await mux.system.signingKeys.create();
  const restriction = await api.post('/video/v1/playback-restrictions', { referrer: { allowed_domains: ['a.example.com'] } });
  expect(restriction.status).toBe(201);
  const sign = (params: Record<string, string> = {}, expiration = '7d') =>
    mux.jwt.signPlaybackId(playbackId, { keyId: key.id, keySecret: key.private_key!, type: 'video', params, expiration });

  const plainUrl = server.url(`/${playbackId}.m3u8?token=${await sign()}`);
  const plain = await httpGet(plainUrl);
  expect(plain.status).toBe(200);
  expect(plain.headers.get('cache-control')).toBe(PLAYLIST);
  const plainVariant = parseMultivariant(plain.body.toString('utf8'), plainUrl).variants[0]!.url;
  const plainMedia = parseMediaPlaylist((await httpGet(plainVariant)).body.toString('utf8'), plainVariant);
  // A signed answer is cacheable no longer than its token lives (the SDK's default: 7 days).
  const week = 7 * 24 * 3600;
  const segmentMaxAge = (cacheControl: string | null, scope: string) =>
    Number(new RegExp(`^${scope}, max-age=(\\d+), immutable$`).exec(cacheControl ?? '')?.[1] ?? NaN);
  const plainSegment = await httpGet(plainMedia.segments[0]!.url);
  expect(segmentMaxAge(plainSegment.headers.get('cache-control'), 'public')).toBeGreaterThan(week - 120);
  expect(segmentMaxAge(plainSegment.headers.get('cache-control'), 'public')).toBeLessThanOrEqual(week);
  const signedAt = Date.now();
  const shortUrl = server.url(`/${playbackId}.m3u8?token=${await sign({}, '90s')}`);
  const short = await httpGet(shortUrl);
  expect(short.headers.get('cache-control')).toBe(PLAYLIST);
  const shortVariant = parseMultivariant(short.body.toString('utf8'), shortUrl).variants[0]!.url;
  const shortSegment = parseMediaPlaylist((await httpGet(shortVariant)).body.toString('utf8'), shortVariant).segments[0]!.url;
  const shortMaxAge = segmentMaxAge((await httpGet(shortSegment)).headers.get('cache-control'), 'public');
  // What is left of the token's 90 s when the (cold, maybe slow on a loaded machine) segment came.
  const left = 90 - (Date.now() - signedAt) / 1000;
  expect(shortMaxAge, `${left.toFixed(1)} s of the token left`).toBeGreaterThanOrEqual(Math.floor(left) - 2);
  expect(shortMaxAge).toBeGreaterThan(0);
  expect(shortMaxAge).toBeLessThanOrEqual(90);

  const referer = { referer: 'https://a.example.com/watch' };
  const restrictedUrl = server.url(`/${playbackId}.m3u8?token=${await sign({ playback_restriction_id: restriction.json.data.id })}`);
  const restricted = await httpGet(restrictedUrl, { headers: referer });
  expect(restricted.status).toBe(200);
  expect(restricted.headers.get('cache-control')).toBe('private, max-age=10');
  const variantUrl = parseMultivariant(restricted.body.toString('utf8'), restrictedUrl).variants[0]!.url;
  const variant = await httpGet(variantUrl, { headers: referer });
  expect(variant.headers.get('cache-control')).toBe('private, max-age=10');
  const segmentUrl = parseMediaPlaylist(variant.body.toString('utf8'), variantUrl).segments[0]!.url;
  const segment = await httpGet(segmentUrl, { headers: referer });
  expect(segment.status).toBe(200);
  expect(segmentMaxAge(segment.headers.get('cache-control'), 'private')).toBeGreaterThan(week - 120);
  const elsewhere = await httpGet(segmentUrl, { headers: { referer: 'https://b.example.com/' } });
  expect(elsewhere.status).toBe(403);
  expect(elsewhere.headers.get('cache-control')).toBe('no-store');

  await mux.system.signingKeys.delete(key.id);
  const revoked = await httpGet(plainUrl);
  expect(revoked.status).toBe(403);
  expect(JSON.parse(revoked.body.toString('utf8')).error.messages[0]).toMatch(/does not exist or was deleted/);
});

test('methods other than GET, HEAD and OPTIONS are refused; preflights are answered', async () => {
  const { playbackId } = await createPlayableAsset(api, inputUrl);
  const post = await httpGet(server.url(`/${playbackId}.m3u8`), { method: 'POST' });
  expect(post.status).toBe(405);
  expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  const preflight = await httpGet(server.url(`/${playbackId}/360p/0.m4s`), {
    method: 'OPTIONS',
    headers: { origin: 'https://player.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'range' },
  });
  expect(preflight.status).toBe(204);
  expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
  expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Range/i);
});
