import { randomBytes } from 'node:crypto';
import { Api, basicAuth, expectApiError, type Json } from '../support/api';
import type { AccessToken, KeyframeServer } from '../support/keyframe-server';
import { disposeKeyframe, expect, startKeyframe, test } from '../support/test';

// Error responses over raw HTTP, in Mux's wire format:
//   {"error": {"type": "...", "messages": ["..."]}}   (429 differs: {"errors": ["Too many requests, retry later."]})

const wellFormedUnknownId = () => {
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  return [...randomBytes(44)].map((byte) => alphabet[byte % 62]).join('');
};

let server: KeyframeServer;
let token: AccessToken;
let api: Api;
/** A valid, reachable input URL, so each bad request below is wrong in one field only. */
let goodUrl: string;

test.beforeAll(async ({ media, fixtures }) => {
  server = await startKeyframe({ label: 'errors' });
  token = await server.createToken();
  api = new Api(server.baseUrl, token);
  goodUrl = media.fileUrl(fixtures.file('videoSmall'));
});

test.afterAll(async () => {
  await disposeKeyframe(server);
});

test.describe('400 invalid_parameters on POST /video/v1/assets', () => {
  const cases: Array<{ name: string; body: (url: string) => Json; field: RegExp }> = [
    { name: 'no input at all', body: () => ({ playback_policies: ['public'] }), field: /inputs?\b/ },
    { name: '`input` is a number', body: () => ({ input: 123 }), field: /\binput\b/ },
    { name: '`inputs` is a string', body: (url) => ({ inputs: url }), field: /\binputs\b/ },
    { name: '`inputs[0].url` is a number', body: () => ({ inputs: [{ url: 42 }] }), field: /inputs.*url|url/ },
    { name: '`input` is not a URL', body: () => ({ input: 'not a url' }), field: /url/ },
    { name: 'ftp:// URL', body: () => ({ inputs: [{ url: 'ftp://example.com/a.mp4' }] }), field: /url/ },
    { name: 'file:// URL', body: () => ({ inputs: [{ url: 'file:///etc/passwd' }] }), field: /url/ },
    { name: 'unknown playback policy', body: (url) => ({ inputs: [{ url }], playback_policies: ['everyone'] }), field: /playback_polic/ },
    { name: '`playback_policy: drm`', body: (url) => ({ inputs: [{ url }], playback_policy: 'drm' }), field: /playback_polic/ },
    { name: '`playback_policies: ["drm"]`', body: (url) => ({ inputs: [{ url }], playback_policies: ['drm'] }), field: /playback_polic/ },
    { name: 'unknown video_quality', body: (url) => ({ inputs: [{ url }], video_quality: 'ultra' }), field: /video_quality/ },
    { name: 'unknown encoding_tier', body: (url) => ({ inputs: [{ url }], encoding_tier: 'turbo' }), field: /encoding_tier/ },
    {
      name: 'encoding_tier smart + video_quality premium (they disagree)',
      body: (url) => ({ inputs: [{ url }], encoding_tier: 'smart', video_quality: 'premium' }),
      field: /encoding_tier.*video_quality.*disagree/,
    },
    { name: 'unknown max_resolution_tier', body: (url) => ({ inputs: [{ url }], max_resolution_tier: '720p' }), field: /max_resolution_tier/ },
    {
      name: 'encoding_tier baseline + max_resolution_tier 2160p',
      body: (url) => ({ inputs: [{ url }], encoding_tier: 'baseline', max_resolution_tier: '2160p' }),
      field: /max_resolution_tier/,
    },
    {
      name: 'encoding_tier baseline + max_resolution_tier 1440p',
      body: (url) => ({ inputs: [{ url }], encoding_tier: 'baseline', max_resolution_tier: '1440p' }),
      field: /max_resolution_tier/,
    },
    {
      name: 'video_quality basic + max_resolution_tier 2160p',
      body: (url) => ({ inputs: [{ url }], video_quality: 'basic', max_resolution_tier: '2160p' }),
      field: /max_resolution_tier/,
    },
    {
      name: 'encoding_tier baseline + mp4_support capped-1080p',
      body: (url) => ({ inputs: [{ url }], encoding_tier: 'baseline', mp4_support: 'capped-1080p' }),
      field: /mp4_support/,
    },
    { name: 'unknown mp4_support', body: (url) => ({ inputs: [{ url }], mp4_support: 'everything' }), field: /mp4_support/ },
    { name: 'unknown master_access', body: (url) => ({ inputs: [{ url }], master_access: 'forever' }), field: /master_access/ },
    { name: 'passthrough longer than 255 characters', body: (url) => ({ inputs: [{ url }], passthrough: 'x'.repeat(256) }), field: /passthrough/ },
    { name: 'passthrough is a number', body: (url) => ({ inputs: [{ url }], passthrough: 7 }), field: /passthrough/ },
    { name: 'meta is a string', body: (url) => ({ inputs: [{ url }], meta: 'title' }), field: /meta/ },
    { name: 'test is a string', body: (url) => ({ inputs: [{ url }], test: 'yes' }), field: /\btest\b/ },
  ];

  for (const { name, body, field } of cases) {
    test(`${name} → 400 naming ${field}`, async () => {
      const before = await api.listAllAssetIds();
      expectApiError(await api.post('/video/v1/assets', body(goodUrl)), 400, 'invalid_parameters', field);
      expect(await api.listAllAssetIds(), 'a rejected request must not create an asset').toEqual(before);
    });
  }

  const malformedBodies = [
    { name: 'malformed JSON', rawBody: '{"input": "http://example.com/a.mp4"', mention: /JSON/i },
    { name: 'a JSON array', rawBody: JSON.stringify([{ input: 'http://example.com/a.mp4' }]), mention: /object/i },
    { name: 'a JSON string', rawBody: '"http://example.com/a.mp4"', mention: /object/i },
  ];
  for (const { name, rawBody, mention } of malformedBodies) {
    test(`body that is ${name} → 400`, async () => {
      const before = await api.listAllAssetIds();
      expectApiError(await api.request('POST', '/video/v1/assets', { rawBody }), 400, 'invalid_parameters', mention);
      expect(await api.listAllAssetIds()).toEqual(before);
    });
  }
});

test.describe('400 invalid_parameters elsewhere', () => {
  let assetId: string;
  test.beforeAll(async () => {
    assetId = (await api.createAsset({ inputs: [{ url: goodUrl }] })).id;
  });

  const cases: Array<{ name: string; method: string; path: (id: string) => string; body?: Json; mention: RegExp }> = [
    { name: 'GET malformed asset id', method: 'GET', path: () => '/video/v1/assets/bad-id', mention: /id/i },
    { name: 'PATCH malformed asset id', method: 'PATCH', path: () => '/video/v1/assets/bad-id', body: { passthrough: 'x' }, mention: /id/i },
    { name: 'DELETE malformed asset id', method: 'DELETE', path: () => '/video/v1/assets/bad-id', mention: /id/i },
    { name: 'GET malformed playback id', method: 'GET', path: () => '/video/v1/playback-ids/bad-id', mention: /id/i },
    { name: 'PATCH passthrough as a number', method: 'PATCH', path: (id) => `/video/v1/assets/${id}`, body: { passthrough: 5 }, mention: /passthrough/ },
    { name: 'PATCH meta as a string', method: 'PATCH', path: (id) => `/video/v1/assets/${id}`, body: { meta: 'x' }, mention: /meta/ },
    {
      name: 'POST playback-ids with unknown policy',
      method: 'POST',
      path: (id) => `/video/v1/assets/${id}/playback-ids`,
      body: { policy: 'everyone' },
      mention: /policy/,
    },
  ];
  for (const { name, method, path, body, mention } of cases) {
    test(`${name} → 400`, async () => {
      expectApiError(await api.request(method, path(assetId), { body }), 400, 'invalid_parameters', mention);
    });
  }

  test('PATCH with malformed JSON → 400', async () => {
    expectApiError(
      await api.request('PATCH', `/video/v1/assets/${assetId}`, { rawBody: '{passthrough:' }),
      400,
      'invalid_parameters',
      /JSON/i,
    );
  });
});

test.describe('401 unauthorized', () => {
  const cases: Array<{ name: string; auth: () => string | null }> = [
    { name: 'no Authorization header', auth: () => null },
    { name: 'wrong secret', auth: () => basicAuth({ id: token.id, secret: `${token.secret}x` }) },
    { name: 'unknown token id', auth: () => basicAuth({ id: wellFormedUnknownId(), secret: token.secret }) },
    { name: 'Basic with garbage', auth: () => 'Basic !!!not-base64!!!' },
    { name: 'Bearer scheme with the secret', auth: () => `Bearer ${token.secret}` },
  ];
  for (const { name, auth } of cases) {
    test(`${name} → 401`, async () => {
      expectApiError(await api.get('/video/v1/assets', { auth: auth() }), 401, 'unauthorized');
      expectApiError(await api.post('/video/v1/assets', { input: goodUrl }, { auth: auth() }), 401, 'unauthorized');
    });
  }

  test('a token revoked with the CLI while the server runs is refused on the very next request', async () => {
    const doomed = await server.createToken({ name: 'e2e-to-be-revoked' });
    const asDoomed = api.as(doomed);
    expect((await asDoomed.get('/video/v1/assets')).status).toBe(200);

    expect(await server.revokeToken(doomed.id)).toEqual({ id: doomed.id, revoked: true });

    expectApiError(await asDoomed.get('/video/v1/assets'), 401, 'unauthorized');
    expectApiError(await asDoomed.post('/video/v1/assets', { input: goodUrl }), 401, 'unauthorized');
    // Other tokens are unaffected.
    expect((await api.get('/video/v1/assets')).status).toBe(200);
  });
});

test.describe('403 forbidden for a read-only token', () => {
  let readOnly: Api;
  let assetId: string;
  test.beforeAll(async () => {
    readOnly = api.as(await server.createToken({ readOnly: true }));
    assetId = (await api.createAsset({ inputs: [{ url: goodUrl }], passthrough: 'owned-by-rw' })).id;
  });

  test('reads succeed', async () => {
    const list = await readOnly.get('/video/v1/assets');
    expect(list.status, list.text).toBe(200);
    expect(list.json.data.map((asset: { id: string }) => asset.id)).toContain(assetId);
    const one = await readOnly.get(`/video/v1/assets/${assetId}`);
    expect(one.status, one.text).toBe(200);
    expect(one.json.data.id).toBe(assetId);
  });

  const writes: Array<{ name: string; method: string; path: (id: string) => string; body?: (url: string) => Json }> = [
    { name: 'POST /assets', method: 'POST', path: () => '/video/v1/assets', body: (url) => ({ inputs: [{ url }] }) },
    { name: 'PATCH /assets/{id}', method: 'PATCH', path: (id) => `/video/v1/assets/${id}`, body: () => ({ passthrough: 'hijacked' }) },
    { name: 'POST /assets/{id}/playback-ids', method: 'POST', path: (id) => `/video/v1/assets/${id}/playback-ids`, body: () => ({ policy: 'public' }) },
    { name: 'DELETE /assets/{id}', method: 'DELETE', path: (id) => `/video/v1/assets/${id}` },
  ];
  for (const { name, method, path, body } of writes) {
    test(`${name} → 403 and nothing changes`, async () => {
      const before = await api.listAllAssetIds();
      expectApiError(await readOnly.request(method, path(assetId), { body: body?.(goodUrl) }), 403, 'forbidden');
      expect(await api.listAllAssetIds()).toEqual(before);
      const asset = await api.get(`/video/v1/assets/${assetId}`);
      expect(asset.status).toBe(200);
      expect(asset.json.data.passthrough).toBe('owned-by-rw');
      expect(asset.json.data.playback_ids ?? []).toEqual([]);
    });
  }
});

test.describe('404 not_found', () => {
  const cases: Array<{ name: string; method: string; path: () => string; body?: Json }> = [
    { name: 'GET unknown well-formed asset id', method: 'GET', path: () => `/video/v1/assets/${wellFormedUnknownId()}` },
    { name: 'PATCH unknown asset', method: 'PATCH', path: () => `/video/v1/assets/${wellFormedUnknownId()}`, body: { passthrough: 'x' } },
    { name: 'DELETE unknown asset', method: 'DELETE', path: () => `/video/v1/assets/${wellFormedUnknownId()}` },
    { name: 'GET unknown playback id', method: 'GET', path: () => `/video/v1/playback-ids/${wellFormedUnknownId()}` },
    { name: 'unknown route under /video/v1', method: 'GET', path: () => '/video/v1/does-not-exist' },
  ];
  for (const { name, method, path, body } of cases) {
    test(`${name} → 404`, async () => {
      expectApiError(await api.request(method, path(), { body }), 404, 'not_found');
    });
  }

  test('unknown route under /video/v1 without credentials → 401 (auth comes first)', async () => {
    expectApiError(await api.get('/video/v1/does-not-exist', { auth: null }), 401, 'unauthorized');
  });
});

test('rate limit: rapid GETs of one asset → 429 with Retry-After, other assets stay readable', async () => {
  const [hot, other] = await Promise.all([
    api.createAsset({ inputs: [{ url: goodUrl }] }),
    api.createAsset({ inputs: [{ url: goodUrl }] }),
  ]);

  const responses = await Promise.all(Array.from({ length: 10 }, () => api.get(`/video/v1/assets/${hot.id}`)));
  const statuses = responses.map((response) => response.status);
  expect(statuses.every((status) => status === 200 || status === 429), statuses.join(',')).toBe(true);
  expect(statuses.filter((status) => status === 200).length, statuses.join(',')).toBeGreaterThanOrEqual(1);
  const limited = responses.filter((response) => response.status === 429);
  expect(limited.length, statuses.join(',')).toBeGreaterThanOrEqual(1);
  for (const response of limited) {
    const retryAfter = response.headers.get('retry-after');
    expect(retryAfter, 'Retry-After header').toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(response.json).toEqual({ errors: ['Too many requests, retry later.'] });
  }

  const otherAsset = await api.get(`/video/v1/assets/${other.id}`);
  expect(otherAsset.status, otherAsset.text).toBe(200);
  expect(otherAsset.json.data.id).toBe(other.id);
});
