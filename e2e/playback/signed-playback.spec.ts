import { createPrivateKey, createPublicKey } from 'node:crypto';
import type Mux from '@mux/mux-node';
import { SignJWT } from 'jose';
import { Api } from '../support/api';
import { httpGet, parseMediaPlaylist, parseMultivariant, renditionName } from '../support/hls';
import type { KeyframeServer } from '../support/keyframe-server';
import { expect, test } from '../support/playback';
import { disposeKeyframe, muxClient, startKeyframe } from '../support/test';

// Signed playback with keys made by the API and tokens made by the real SDK (`mux.jwt`), as a
// customer's backend makes them: a valid token opens the playlist, the rendition playlists and
// the segments it lists; every kind of bad token is a 403 with a reason; restrictions apply to
// the referrer of every request, segments included.

let server: KeyframeServer;
let api: Api;
let mux: Mux;
let key: { id: string; secret: string };
let playbackId: string;
let otherPlaybackId: string;

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const inOneHour = () => Math.floor(Date.now() / 1000) + 3600;

const videoToken = (params: Record<string, string> = {}, forPlaybackId = playbackId) =>
  mux.jwt.signPlaybackId(forPlaybackId, { keyId: key.id, keySecret: key.secret, type: 'video', params });

const signWithKey = (claims: Record<string, unknown>) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'RS256' }).sign(createPrivateKey(Buffer.from(key.secret, 'base64').toString('utf8')));

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(server.url(path), { headers, redirect: 'manual' }).then(async (response) => ({ status: response.status, text: await response.text() }));

const expectForbidden = async (path: string, reason: RegExp, headers: Record<string, string> = {}) => {
  const response = await get(path, headers);
  expect(response.status, `${path}: ${response.text}`).toBe(403);
  expect(JSON.parse(response.text)).toEqual({ error: { type: 'forbidden', messages: [expect.stringMatching(reason)] } });
};

test.beforeAll(async ({ playbackFixtures, playbackMedia }) => {
  test.setTimeout(240_000);
  server = await startKeyframe({ label: 'signed-playback' });
  const token = await server.createToken();
  api = new Api(server.baseUrl, token);
  mux = muxClient(server, token);
  const created = await mux.system.signingKeys.create();
  expect(created.private_key).toBeTruthy();
  key = { id: created.id, secret: created.private_key! };
  await playbackFixtures.ensure('landscape1080p');
  const url = playbackMedia.fileUrl(playbackFixtures.file('landscape1080p'));
  const asset = await api.createAsset({ inputs: [{ url }], playback_policies: ['signed'] });
  const other = await api.createAsset({ inputs: [{ url }], playback_policies: ['signed'] });
  for (const id of [asset.id, other.id]) expect((await api.waitForStatus(id, ['ready', 'errored'], 120_000)).status).toBe('ready');
  playbackId = asset.playback_ids[0].id;
  otherPlaybackId = other.playback_ids[0].id;
});

test.afterAll(async () => {
  await disposeKeyframe(server);
});

test('signing keys: the private key is returned once, only the public key is kept, both API paths work', async () => {
  const made = await mux.system.signingKeys.create();
  const pem = Buffer.from(made.private_key ?? '', 'base64').toString('utf8');
  expect(pem).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
  expect(createPublicKey(createPrivateKey(pem)).asymmetricKeyType).toBe('rsa');
  const fetched = await mux.system.signingKeys.retrieve(made.id);
  expect(fetched).toEqual({ id: made.id, created_at: made.created_at });
  const listed = await api.get('/video/v1/signing-keys?limit=100');
  expect(listed.status).toBe(200);
  expect(listed.json.data.map((entry: { id: string }) => entry.id)).toContain(made.id);
  expect(JSON.stringify(listed.json)).not.toContain('private_key');
  expect((await api.delete(`/system/v1/signing-keys/${made.id}`)).status).toBe(204);
  const gone = await api.get(`/system/v1/signing-keys/${made.id}`);
  expect(gone.status).toBe(404);
  expect(gone.json).toEqual({ error: { type: 'not_found', messages: ['Signing Key not found'] } });
});

test('a valid token opens the playlist; rendition playlists and segments work through the URLs it lists', async () => {
  const token = await videoToken();
  const multivariantUrl = server.url(`/${playbackId}.m3u8?token=${token}`);
  const multivariant = await httpGet(multivariantUrl);
  expect(multivariant.status, multivariant.text).toBe(200);
  const parsed = parseMultivariant(multivariant.text, multivariantUrl);
  expect(parsed.variants.length).toBeGreaterThan(1);
  // The listed URLs carry their own proof, not the customer's token.
  expect(multivariant.text).not.toContain(token);
  const variant = parsed.variants[0]!;
  // A player resolving the relative URI drops the multivariant playlist's query string.
  const rendition = await httpGet(variant.url);
  expect(rendition.status, rendition.text).toBe(200);
  const media = parseMediaPlaylist(rendition.text, variant.url);
  const init = await httpGet(media.map!.url);
  expect(init.status).toBe(200);
  const segment = await httpGet(media.segments[0]!.url);
  expect(segment.status, segment.text.slice(0, 300)).toBe(200);
  expect(segment.body.subarray(4, 8).toString('latin1')).toMatch(/styp|moof/);

  // Without the proof, or with the proof of another playback ID, the same files are refused.
  const bare = media.segments[0]!.url.split('?')[0]!;
  await expectForbidden(new URL(bare).pathname, /signed/);
  const otherToken = await videoToken({}, otherPlaybackId);
  const otherPlaylist = await httpGet(server.url(`/${otherPlaybackId}.m3u8?token=${otherToken}`));
  const otherProof = /kfp=([^\s"]+)/.exec(otherPlaylist.text)?.[1];
  expect(otherProof).toBeTruthy();
  await expectForbidden(`${new URL(bare).pathname}?kfp=${otherProof}`, /invalid for this playback ID/);
});

test('modifiers come from the claims: max_resolution in the token caps the ladder; the query cannot lift it', async () => {
  const capped = await videoToken({ max_resolution: '480p' });
  const response = await httpGet(server.url(`/${playbackId}.m3u8?token=${capped}&max_resolution=1080p`));
  expect(response.status).toBe(200);
  const heights = parseMultivariant(response.text, server.baseUrl)
    .variants.filter((variant) => renditionName(variant.uri) !== 'audio')
    .map((variant) => Number(variant.attributes.RESOLUTION?.split('x')[1]));
  expect(heights.length).toBeGreaterThan(0);
  expect(Math.max(...heights)).toBeLessThanOrEqual(480);
});

test('images of a signed playback ID need a token with their own audience', async () => {
  const sign = (type: 'thumbnail' | 'gif' | 'storyboard') => mux.jwt.signPlaybackId(playbackId, { keyId: key.id, keySecret: key.secret, type });
  const images = [
    ['thumbnail', `/${playbackId}/thumbnail.jpg`, 'image/jpeg'],
    ['gif', `/${playbackId}/animated.gif`, 'image/gif'],
    ['storyboard', `/${playbackId}/storyboard.vtt`, 'text/vtt'],
  ] as const;
  for (const [type, path, contentType] of images) {
    const response = await fetch(server.url(`${path}?token=${await sign(type)}`));
    expect(response.status, `${path}: ${await response.clone().text()}`).toBe(200);
    expect(response.headers.get('content-type')).toContain(contentType);
    await expectForbidden(path, /signed/);
    await expectForbidden(`${path}?token=${await videoToken()}`, /aud/);
  }
});

test('the upper-case TOKEN parameter of the SDK playback helpers is accepted', async () => {
  const response = await get(`/${playbackId}.m3u8?TOKEN=${await videoToken()}`);
  expect(response.status, response.text).toBe(200);
});

test('bad tokens are refused with a reason', async () => {
  const path = (token: string) => `/${playbackId}.m3u8?token=${token}`;
  await expectForbidden(`/${playbackId}.m3u8`, /signed/);
  await expectForbidden(path(await signWithKey({ sub: playbackId, aud: 'v', kid: key.id, exp: Math.floor(Date.now() / 1000) - 10 })), /expired/);
  await expectForbidden(path(await videoToken({}, otherPlaybackId)), /different playback ID/);
  await expectForbidden(path(await mux.jwt.signPlaybackId(playbackId, { keyId: key.id, keySecret: key.secret, type: 'thumbnail' })), /aud/);
  const valid = await videoToken();
  const [header, payload, signature] = valid.split('.');
  const widened = encode({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), max_resolution: '2160p' });
  await expectForbidden(path(`${header}.${widened}.${signature}`), /signature is invalid/);
  const claims = { sub: playbackId, aud: 'v', kid: key.id, exp: inOneHour() };
  await expectForbidden(path(`${encode({ alg: 'none', typ: 'JWT' })}.${encode(claims)}.`), /RS256/);
  const publicPem = createPublicKey(createPrivateKey(Buffer.from(key.secret, 'base64').toString('utf8'))).export({ type: 'spki', format: 'pem' });
  const confused = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(String(publicPem)));
  await expectForbidden(path(confused), /RS256/);
  await expectForbidden(path('garbage'), /well-formed/);

  // A deleted key: tokens signed with it stop working at once.
  const doomed = await mux.system.signingKeys.create();
  const doomedToken = await mux.jwt.signPlaybackId(playbackId, { keyId: doomed.id, keySecret: doomed.private_key!, type: 'video' });
  expect((await get(path(doomedToken))).status).toBe(200);
  await mux.system.signingKeys.delete(doomed.id);
  await expectForbidden(path(doomedToken), /does not exist or was deleted/);
});

test('a playback restriction allows listed referrers only, on every request', async () => {
  const created = await api.post('/video/v1/playback-restrictions', {
    referrer: { allowed_domains: ['example.com', '*.example.org'], allow_no_referrer: false },
    user_agent: { allow_no_user_agent: true, allow_high_risk_user_agent: true },
  });
  expect(created.status, created.text).toBe(201);
  const restriction = created.json.data;
  expect(restriction.referrer).toEqual({ allowed_domains: ['example.com', '*.example.org'], allow_no_referrer: false });

  const token = await videoToken({ playback_restriction_id: restriction.id });
  const path = `/${playbackId}.m3u8?token=${token}`;
  const allowed = await get(path, { referer: 'https://video.example.org/watch' });
  expect(allowed.status, allowed.text).toBe(200);
  expect((await get(path, { referer: 'https://example.com/' })).status).toBe(200);
  await expectForbidden(path, /evil\.net is not allowed/, { referer: 'https://evil.net/page' });
  await expectForbidden(path, /without a Referer/);

  // The proof in the listed URLs carries the restriction along.
  const listedUrl = parseMultivariant(allowed.text, server.url(path)).variants[0]!.url;
  const listed = new URL(listedUrl);
  expect((await get(`${listed.pathname}${listed.search}`, { referer: 'https://example.com/' })).status).toBe(200);
  await expectForbidden(`${listed.pathname}${listed.search}`, /not allowed/, { referer: 'https://evil.net/' });

  // Loosening the rule takes effect for tokens already handed out.
  const updated = await api.request('PUT', `/video/v1/playback-restrictions/${restriction.id}/referrer`, { body: { allowed_domains: ['*'], allow_no_referrer: true } });
  expect(updated.status, updated.text).toBe(200);
  expect((await get(path)).status).toBe(200);

  const uaRule = await api.request('PUT', `/video/v1/playback-restrictions/${restriction.id}/user_agent`, { body: { allow_high_risk_user_agent: false } });
  expect(uaRule.json.data.user_agent).toEqual({ allow_no_user_agent: true, allow_high_risk_user_agent: false });
  await expectForbidden(path, /user agent/, { 'user-agent': 'curl/8.5.0' });

  expect((await api.delete(`/video/v1/playback-restrictions/${restriction.id}`)).status).toBe(204);
  await expectForbidden(path, /does not exist/);
  const bad = await api.post('/video/v1/playback-restrictions', { referrer: { allowed_domains: ['not a domain'] } });
  expect(bad.status).toBe(400);
});
