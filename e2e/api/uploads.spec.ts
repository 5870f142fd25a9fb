import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Api, expectApiError, type Json } from '../support/api';
import { probeDuration } from '../support/fixtures';
import { isCluster, KeyframeCluster, type KeyframeServer } from '../support/keyframe-server';
import { disposeKeyframe, expect, startKeyframe, test } from '../support/test';
import {
  assetsOfUpload,
  CHUNK_GRANULE_BYTES,
  createUpload,
  getUpload,
  putChunk,
  putWholeFile,
  queryReceived,
  rangeAfter,
  sendToUploadUrl,
  sha256,
  streamFileOnOwnConnection,
  tokenOf,
  waitForUploadStatus,
  withToken,
} from '../support/uploads';

// Direct uploads (POST /video/v1/uploads and the upload `url`) against a real server: the control
// plane with raw HTTP, the data plane the way its clients use it — one streamed request like
// `curl -T`, and Content-Range chunks like UpChunk, including the resumable-upload corner cases
// (re-sent, overlapping and out-of-order chunks, status queries). Uploaded media is ingested for
// real, so an upload is only "done" when its asset is ready and holds exactly the bytes sent.

const WELL_FORMED_UNKNOWN_ID = 'A'.repeat(20) + 'b'.repeat(24);
const UPLOAD_TIMEOUT_MIN = 60;
const UPLOAD_TIMEOUT_MAX = 604_800;

let server: KeyframeServer;
let api: Api;
/** Created as soon as the server is up, so the wait for its 60 s timeout overlaps the other tests. */
let expiringUpload: { upload: Json; createdAt: number };

test.beforeAll(async () => {
  server = await startKeyframe({ label: 'uploads' });
  api = new Api(server.baseUrl, await server.createToken());
  expiringUpload = { upload: await createUpload(api, { timeout: UPLOAD_TIMEOUT_MIN }), createdAt: Date.now() };
});

test.afterAll(async () => {
  await disposeKeyframe(server);
});

/** The asset's stored source: DATA_DIR/assets/<id>/source, or in a cluster its object in the bucket. */
const storedSource = async (assetId: string): Promise<{ where: string; bytes: Buffer | undefined }> => {
  if (server instanceof KeyframeCluster) return { where: `the bucket's assets/${assetId}/source`, bytes: await server.storedSource(assetId) };
  const file = path.join(server.assetDir(assetId), 'source');
  return { where: file, bytes: existsSync(file) ? await readFile(file) : undefined };
};

/** The asset made from an upload: ready, linked back to it, and holding exactly the uploaded bytes. */
const expectReadyAssetFromUpload = async (upload: Json, file: { path: string; bytes: Buffer }): Promise<Json> => {
  const asset = await api.waitForStatus(upload.asset_id, ['ready', 'errored'], 60_000);
  expect(asset.status, `asset from upload ${upload.id}: ${JSON.stringify(asset.errors)}`).toBe('ready');
  expect(asset.upload_id).toBe(upload.id);
  expect(asset.ingest_type).toBe('on_demand_direct_upload');
  expect(asset.duration).toBeCloseTo(await probeDuration(file.path), 1);
  const source = await storedSource(asset.id);
  expect(source.bytes, `stored source ${source.where}`).toBeDefined();
  expect(sha256(source.bytes!), 'stored source is byte-identical to the uploaded file').toBe(sha256(file.bytes));
  return asset;
};

test.describe('control plane', () => {
  test('POST → 201 waiting upload with a url on this server; settings normalised; GET returns it', async () => {
    const created = await createUpload(api, {
      new_asset_settings: { playback_policy: 'public', passthrough: 'from-upload' },
      cors_origin: '*',
    });
    expect(created.id).toMatch(/^[A-Za-z0-9]{20,64}$/);
    expect(created.status).toBe('waiting');
    expect(created.timeout).toBe(3600);
    expect(created.cors_origin).toBe('*');
    expect(created.new_asset_settings.playback_policies).toEqual(['public']);
    expect(created.new_asset_settings).not.toHaveProperty('playback_policy');
    expect(created.new_asset_settings.passthrough).toBe('from-upload');
    expect(created).not.toHaveProperty('asset_id');
    expect(created).not.toHaveProperty('error');
    const url = new URL(created.url);
    expect(`${url.origin}${url.pathname}`).toBe(server.url(`/upload/${created.id}`));
    expect(url.searchParams.get('token'), created.url).toBeTruthy();

    const fetched = await getUpload(api, created.id);
    expect(fetched).toMatchObject({
      id: created.id,
      status: 'waiting',
      url: created.url,
      timeout: 3600,
      cors_origin: '*',
      new_asset_settings: created.new_asset_settings,
    });

    const bounds = await Promise.all([
      createUpload(api, { timeout: UPLOAD_TIMEOUT_MIN, test: true }),
      createUpload(api, { timeout: UPLOAD_TIMEOUT_MAX }),
    ]);
    expect(bounds.map((upload) => upload.timeout)).toEqual([UPLOAD_TIMEOUT_MIN, UPLOAD_TIMEOUT_MAX]);
    expect(bounds[0].test).toBe(true);
  });

  test('GET /video/v1/uploads?limit&page pages through every upload once', async () => {
    const mine = await Promise.all([createUpload(api), createUpload(api), createUpload(api)]);
    const seen: string[] = [];
    for (let page = 1; page < 100; page += 1) {
      const response = await api.get(`/video/v1/uploads?limit=2&page=${page}`);
      expect(response.status, response.text).toBe(200);
      const data = response.json.data as Json[];
      expect(data.length).toBeLessThanOrEqual(2);
      if (data.length === 0) break;
      for (const upload of data) expect(upload.status, JSON.stringify(upload)).toMatch(/^(waiting|asset_created|errored|cancelled|timed_out)$/);
      seen.push(...data.map((upload) => upload.id as string));
    }
    expect(new Set(seen).size, 'no upload listed twice').toBe(seen.length);
    for (const upload of mine) expect(seen).toContain(upload.id);
  });

  test('unknown id → 404, malformed id → 400 (GET and cancel)', async () => {
    expectApiError(await api.get(`/video/v1/uploads/${WELL_FORMED_UNKNOWN_ID}`), 404, 'not_found');
    expectApiError(await api.request('PUT', `/video/v1/uploads/${WELL_FORMED_UNKNOWN_ID}/cancel`), 404, 'not_found');
    expectApiError(await api.get('/video/v1/uploads/not-an-id!'), 400, 'invalid_parameters');
    expectApiError(await api.request('PUT', '/video/v1/uploads/short/cancel'), 400, 'invalid_parameters');
  });

  const invalidBodies: Array<{ name: string; body: Json; mention: RegExp }> = [
    { name: 'unknown video_quality', body: { new_asset_settings: { video_quality: 'bogus' } }, mention: /video_quality/ },
    {
      name: '2160p with basic quality',
      body: { new_asset_settings: { max_resolution_tier: '2160p', video_quality: 'basic' } },
      mention: /max_resolution_tier|basic|2160p/,
    },
    { name: 'an input url (the upload is the input)', body: { new_asset_settings: { inputs: [{ url: 'http://x' }] } }, mention: /url/ },
    { name: 'timeout 59', body: { timeout: UPLOAD_TIMEOUT_MIN - 1 }, mention: /timeout/ },
    { name: 'timeout 604801', body: { timeout: UPLOAD_TIMEOUT_MAX + 1 }, mention: /timeout/ },
  ];
  for (const { name, body, mention } of invalidBodies) {
    test(`create with ${name} → 400 invalid_parameters`, async () => {
      expectApiError(await api.post('/video/v1/uploads', body), 400, 'invalid_parameters', mention);
    });
  }

  test('cancel while waiting → cancelled (idempotent), url gone, later bytes → 410, no asset', async ({ fixtures }) => {
    // The 410 comes before the server reads the body. Straight from Node the client sees it; through
    // the cluster's nginx (request buffering off) a client still sending a multi-megabyte body may
    // see the connection reset instead, which fetch reports as a failure. HTTP allows both.
    test.skip(isCluster(), 'an early 410 to a body still being sent may arrive through the proxy as a reset');
    const file = await readFile(fixtures.path('video720p'));
    const upload = await createUpload(api);
    const first = await putChunk(upload.url, file, 0, CHUNK_GRANULE_BYTES);
    expect(first.status, first.describe).toBe(308);

    for (const attempt of ['first', 'repeated']) {
      const cancelled = await api.request('PUT', `/video/v1/uploads/${upload.id}/cancel`);
      expect(cancelled.status, `${attempt} cancel: ${cancelled.text}`).toBe(200);
      expect(cancelled.json.data.status).toBe('cancelled');
      expect(cancelled.json.data).not.toHaveProperty('url');
    }
    const fetched = await getUpload(api, upload.id);
    expect(fetched.status).toBe('cancelled');
    expect(fetched).not.toHaveProperty('url');

    const rest = await putChunk(upload.url, file, CHUNK_GRANULE_BYTES, file.length);
    expect(rest.status, rest.describe).toBe(410);
    const whole = await putWholeFile(upload.url, fixtures.path('video720p'));
    expect(whole.status, whole.describe).toBe(410);
    expect(await assetsOfUpload(api, upload.id)).toEqual([]);
    expect((await getUpload(api, upload.id)).status).toBe('cancelled');
  });
});

test.describe('upload url authorisation', () => {
  test('missing, wrong or another upload\'s token → 403 and nothing is stored', async ({ fixtures }) => {
    const file = await readFile(fixtures.path('video720p'));
    const [mine, other] = await Promise.all([createUpload(api), createUpload(api)]);
    const attempts: Array<{ name: string; url: string }> = [
      { name: 'no token', url: withToken(mine.url, null) },
      { name: 'garbage token', url: withToken(mine.url, 'not-a-token') },
      { name: 'token with one character changed', url: withToken(mine.url, flipSignatureCharacter(tokenOf(mine.url))) },
      { name: 'the other upload\'s token', url: withToken(mine.url, tokenOf(other.url)) },
    ];
    for (const { name, url } of attempts) {
      const chunk = await putChunk(url, file, 0, CHUNK_GRANULE_BYTES);
      expect(chunk.status, `${name}: ${chunk.describe}`).toBe(403);
      const whole = await putWholeFile(url, fixtures.path('video720p'));
      expect(whole.status, `${name}, whole file: ${whole.describe}`).toBe(403);
    }
    const status = await queryReceived(mine.url, file.length);
    expect(status.status, status.describe).toBe(308);
    expect(status.range, `nothing was received: ${status.describe}`).toBeNull();
    expect((await getUpload(api, mine.id)).status).toBe('waiting');
    expect(await assetsOfUpload(api, mine.id)).toEqual([]);
  });
});

// A character inside the signature, not its last: the last base64url character of a signature
// also carries padding bits, and changing only those leaves the signature valid.
const flipSignatureCharacter = (value: string): string => {
  const at = value.length - 10;
  return `${value.slice(0, at)}${value[at] === 'A' ? 'B' : 'A'}${value.slice(at + 1)}`;
};

test.describe('one request without Content-Range (curl -T, next-video, Mux CLI)', () => {
  test('streamed PUT with Content-Length → 200; upload asset_created; asset ready with the exact bytes; cancel → 403', async ({ fixtures }) => {
    const filePath = fixtures.path('video720p');
    const file = { path: filePath, bytes: await readFile(filePath) };
    const upload = await createUpload(api, {
      new_asset_settings: { playback_policy: 'public', passthrough: 'curl-style', video_quality: 'basic' },
    });

    const response = await putWholeFile(upload.url, filePath, { headers: { 'content-type': 'video/mp4' } });
    expect(response.status, response.describe).toBe(200);

    const done = await waitForUploadStatus(api, upload.id, ['asset_created', 'errored', 'cancelled', 'timed_out']);
    expect(done.status, JSON.stringify(done)).toBe('asset_created');
    expect(done.asset_id).toMatch(/^[A-Za-z0-9]{20,64}$/);
    expect(done).not.toHaveProperty('url');

    const asset = await expectReadyAssetFromUpload(done, file);
    expect(asset.passthrough).toBe('curl-style');
    expect(asset.video_quality).toBe('basic');
    expect(asset.playback_ids).toEqual([{ id: expect.any(String), policy: 'public' }]);
    expect(await assetsOfUpload(api, upload.id)).toEqual([expect.objectContaining({ id: asset.id })]);

    expectApiError(await api.request('PUT', `/video/v1/uploads/${upload.id}/cancel`), 403, 'forbidden');
    const after = await getUpload(api, upload.id);
    expect(after.status).toBe('asset_created');
    expect(after.asset_id).toBe(asset.id);
  });

  test('POST with a chunked-transfer body (no Content-Length) → 200 and an asset', async ({ fixtures }) => {
    const filePath = fixtures.path('videoSmall');
    const upload = await createUpload(api);
    const response = await putWholeFile(upload.url, filePath, { method: 'POST', chunkedTransfer: true });
    expect(response.status, response.describe).toBe(200);
    const done = await waitForUploadStatus(api, upload.id, ['asset_created', 'errored', 'cancelled', 'timed_out']);
    expect(done.status, JSON.stringify(done)).toBe('asset_created');
    await expectReadyAssetFromUpload(done, { path: filePath, bytes: await readFile(filePath) });
  });

  test('bytes that are not media → 200, upload asset_created, asset errored with a message', async ({ fixtures }) => {
    const upload = await createUpload(api);
    const response = await putWholeFile(upload.url, fixtures.path('corrupt'));
    expect(response.status, response.describe).toBe(200);
    const done = await waitForUploadStatus(api, upload.id, ['asset_created', 'errored', 'cancelled', 'timed_out']);
    expect(done.status, JSON.stringify(done)).toBe('asset_created');

    const asset = await api.waitForStatus(done.asset_id, ['ready', 'errored'], 60_000);
    expect(asset.status, JSON.stringify(asset)).toBe('errored');
    expect(asset.upload_id).toBe(upload.id);
    expect(asset.errors?.messages?.length, JSON.stringify(asset.errors)).toBeGreaterThan(0);
    for (const message of asset.errors.messages) expect(String(message).trim()).not.toBe('');
    // The upload did its job (the bytes arrived and became an asset); the media failure is the asset's.
    expect((await getUpload(api, upload.id)).status).toBe('asset_created');
  });
});

test.describe('Content-Range chunks (UpChunk style)', () => {
  test('re-sent, overlapping, out-of-order and malformed chunks; status queries; then the asset holds the exact file', async ({ fixtures }) => {
    const filePath = fixtures.path('video720p');
    const file = await readFile(filePath);
    const total = file.length;
    // Three chunks on the 256 KiB grid (the last one takes the remainder), as UpChunk cuts them.
    const chunkBytes = Math.max(CHUNK_GRANULE_BYTES, Math.floor(total / 3 / CHUNK_GRANULE_BYTES) * CHUNK_GRANULE_BYTES);
    expect(total, 'the fixture must be long enough for three chunks').toBeGreaterThan(2 * chunkBytes);
    const upload = await createUpload(api, { new_asset_settings: { playback_policies: ['public'] } });
    const url = upload.url as string;

    const expectReceived = async (step: string, received: number) => {
      const status = await queryReceived(url, total);
      expect(status.status, `${step}: ${status.describe}`).toBe(308);
      expect(status.range, `${step}: ${status.describe}`).toBe(received === 0 ? null : rangeAfter(received));
    };

    await expectReceived('before any chunk', 0);

    const early = await putChunk(url, file, chunkBytes, 2 * chunkBytes);
    expect(early.status, `chunk 2 before chunk 1: ${early.describe}`).toBe(409);
    expect(early.headers.get('content-type') ?? '', early.describe).toContain('application/json');
    expect(early.range, `nothing received yet, so no Range: ${early.describe}`).toBeNull();

    const first = await putChunk(url, file, 0, chunkBytes);
    expect(first.status, first.describe).toBe(308);
    expect(first.range, first.describe).toBe(rangeAfter(chunkBytes));

    const resent = await putChunk(url, file, 0, chunkBytes, { method: 'POST' });
    expect(resent.status, `the same chunk again (POST): ${resent.describe}`).toBe(308);
    expect(resent.range, resent.describe).toBe(rangeAfter(chunkBytes));

    const ahead = await putChunk(url, file, 2 * chunkBytes, total);
    expect(ahead.status, `last chunk while the second is missing: ${ahead.describe}`).toBe(409);
    expect(ahead.headers.get('content-type') ?? '', ahead.describe).toContain('application/json');
    expect(ahead.range, ahead.describe).toBe(rangeAfter(chunkBytes));
    await expectReceived('after the out-of-order chunk', chunkBytes);

    // Starts inside what is stored: the known bytes are skipped, the rest appended.
    const overlapping = await putChunk(url, file, chunkBytes - CHUNK_GRANULE_BYTES, 2 * chunkBytes, { method: 'PATCH' });
    expect(overlapping.status, `overlapping chunk (PATCH): ${overlapping.describe}`).toBe(308);
    expect(overlapping.range, overlapping.describe).toBe(rangeAfter(2 * chunkBytes));

    const otherTotal = await putChunk(url, file, 2 * chunkBytes, total, { total: total + 1 });
    expect(otherTotal.status, `a different total: ${otherTotal.describe}`).toBe(400);
    for (const contentRange of ['bytes abc', `bytes ${2 * chunkBytes + 10}-${2 * chunkBytes}/${total}`, `bytes 0-${total}/${total}`, `items 0-9/${total}`]) {
      const malformed = await sendToUploadUrl(url, {
        body: file.subarray(2 * chunkBytes, total),
        headers: { 'content-type': 'video/mp4', 'content-range': contentRange },
      });
      expect(malformed.status, `malformed Content-Range "${contentRange}": ${malformed.describe}`).toBe(400);
    }
    await expectReceived('after the rejected chunks', 2 * chunkBytes);
    expect((await getUpload(api, upload.id)).status).toBe('waiting');
    expect(await assetsOfUpload(api, upload.id), 'no asset before the last byte').toEqual([]);

    const last = await putChunk(url, file, 2 * chunkBytes, total);
    expect(last.status, `last chunk: ${last.describe}`).toBe(200);
    const lastAgain = await putChunk(url, file, 2 * chunkBytes, total);
    expect(lastAgain.status, `last chunk re-sent after completion: ${lastAgain.describe}`).toBe(200);

    const done = await waitForUploadStatus(api, upload.id, ['asset_created', 'errored', 'cancelled', 'timed_out']);
    expect(done.status, JSON.stringify(done)).toBe('asset_created');
    await expectReadyAssetFromUpload(done, { path: filePath, bytes: file });
    expect(await assetsOfUpload(api, upload.id), 'exactly one asset, also after the re-sent last chunk').toHaveLength(1);
  });
});

test.describe('CORS on the upload url', () => {
  const preflight = (url: string, origin: string) =>
    sendToUploadUrl(url, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'PUT',
        'access-control-request-headers': 'content-type,content-range',
      },
    });

  const listed = (header: string | null): string[] => (header ?? '').split(',').map((value) => value.trim().toLowerCase()).filter(Boolean);

  const expectAllowed = async (url: string, origin: string) => {
    const response = await preflight(url, origin);
    const context = `preflight from ${origin}: ${response.describe}`;
    expect(response.status, context).toBe(204);
    expect([origin, '*'], context).toContain(response.headers.get('access-control-allow-origin'));
    expect(listed(response.headers.get('access-control-allow-methods')), context).toContain('put');
    const allowedHeaders = listed(response.headers.get('access-control-allow-headers'));
    for (const header of ['content-type', 'content-range']) {
      expect(allowedHeaders.includes(header) || allowedHeaders.includes('*'), `${context}; allow-headers should cover ${header}`).toBe(true);
    }
    expect(listed(response.headers.get('access-control-expose-headers')), `${context}; Range must be readable by UpChunk`).toContain('range');
  };

  const expectDenied = async (url: string, origin: string) => {
    const response = await preflight(url, origin);
    const context = `preflight from ${origin}: ${response.describe}`;
    expect(response.status, context).toBe(403);
    expect(response.headers.get('access-control-allow-origin'), context).toBeNull();
  };

  test('exact origin: its preflight is allowed, other origins are not; chunk responses carry the CORS headers', async ({ fixtures }) => {
    const origin = 'https://app.example.test';
    const upload = await createUpload(api, { cors_origin: origin });
    expect(upload.cors_origin).toBe(origin);
    await expectAllowed(upload.url, origin);
    for (const other of ['https://evil.example.test', 'http://app.example.test', 'https://app.example.test.evil.test', 'null']) {
      await expectDenied(upload.url, other);
    }

    const file = await readFile(fixtures.path('video720p'));
    const chunk = await putChunk(upload.url, file, 0, CHUNK_GRANULE_BYTES, { headers: { origin } });
    expect(chunk.status, chunk.describe).toBe(308);
    expect([origin, '*'], chunk.describe).toContain(chunk.headers.get('access-control-allow-origin'));
    expect(listed(chunk.headers.get('access-control-expose-headers')), chunk.describe).toContain('range');
  });

  test('wildcard origin http://*.example.test: subdomains allowed; other hosts and schemes are not', async () => {
    const upload = await createUpload(api, { cors_origin: 'http://*.example.test' });
    for (const origin of ['http://uploader.example.test', 'http://a.b.example.test']) await expectAllowed(upload.url, origin);
    for (const origin of ['https://uploader.example.test', 'http://uploader.example.test.evil.test', 'http://example.evil.test', 'http://notexample.test']) {
      await expectDenied(upload.url, origin);
    }
  });

  test('cors_origin "*": any origin may upload', async () => {
    const upload = await createUpload(api, { cors_origin: '*' });
    for (const origin of ['http://uploader.test', 'https://anything.example']) await expectAllowed(upload.url, origin);
  });
});

test.describe('size limit (MAX_INPUT_BYTES=1000000)', () => {
  const limit = 1_000_000;
  let limited: KeyframeServer;
  let limitedApi: Api;
  test.beforeAll(async () => {
    limited = await startKeyframe({ label: 'uploads-size-limit', env: { MAX_INPUT_BYTES: String(limit) } });
    limitedApi = new Api(limited.baseUrl, await limited.createToken());
  });
  test.afterAll(async () => {
    await disposeKeyframe(limited);
  });

  const expectErrored = async (uploadId: string) => {
    const upload = await waitForUploadStatus(limitedApi, uploadId, ['errored', 'asset_created', 'cancelled', 'timed_out'], 10_000);
    expect(upload.status, JSON.stringify(upload)).toBe('errored');
    expect(upload.error, JSON.stringify(upload)).toEqual({ type: expect.any(String), message: expect.any(String) });
    expect(upload).not.toHaveProperty('url');
    expect(await assetsOfUpload(limitedApi, uploadId)).toEqual([]);
  };

  test('a chunk announcing a total above the limit → 413, upload errored', async () => {
    const upload = await createUpload(limitedApi);
    const chunk = Buffer.alloc(CHUNK_GRANULE_BYTES, 7);
    const response = await putChunk(upload.url, chunk, 0, chunk.length, { total: limit + 1 });
    expect(response.status, response.describe).toBe(413);
    await expectErrored(upload.id);
  });

  test('one request with Content-Length above the limit → 413, upload errored', async ({ fixtures }) => {
    const filePath = fixtures.path('video720p');
    expect((await readFile(filePath)).length).toBeGreaterThan(limit);
    const upload = await createUpload(limitedApi);
    const response = await putWholeFile(upload.url, filePath).catch((error: unknown) => {
      // A server may answer 413 and close before the whole body is sent; fetch then fails instead.
      throw new Error(`PUT of ${filePath} failed without a response: ${String(error)}`);
    });
    expect(response.status, response.describe).toBe(413);
    await expectErrored(upload.id);
  });

  test('one request with no declared size (chunked transfer) that runs past the limit → 413, upload errored', async ({ fixtures }) => {
    const upload = await createUpload(limitedApi);
    const response = await streamFileOnOwnConnection(upload.url, fixtures.path('video720p'));
    expect(response.status, response.body).toBe(413);
    await expectErrored(upload.id);
  });
});

// Near the end of the file: its upload was created in beforeAll, so most of the 60 s already passed.
test.describe('timeout', () => {
  test('an upload with timeout 60 that never completes → timed_out on the next GET; url gone; PUT → 410', async ({ fixtures }) => {
    test.setTimeout(150_000);
    const { upload, createdAt } = expiringUpload;
    const sleepUntil = async (at: number) => {
      if (Date.now() < at) await new Promise((resolve) => setTimeout(resolve, at - Date.now()));
    };

    const file = await readFile(fixtures.path('video720p'));
    await sleepUntil(createdAt + 40_000);
    if (Date.now() < createdAt + 55_000) {
      const early = await putChunk(upload.url, file, 0, CHUNK_GRANULE_BYTES);
      expect(early.status, `${Math.round((Date.now() - createdAt) / 1000)} s after creation: ${early.describe}`).toBe(308);
      expect((await getUpload(api, upload.id)).status, 'not timed out before its timeout').toBe('waiting');
    } else {
      test.info().annotations.push({ type: 'note', description: 'earlier tests took over 55 s; the before-timeout check was skipped' });
    }

    await sleepUntil(createdAt + (UPLOAD_TIMEOUT_MIN + 1.5) * 1000);
    const expired = await getUpload(api, upload.id);
    expect(expired.status, JSON.stringify(expired)).toBe('timed_out');
    expect(expired).not.toHaveProperty('url');
    expect(expired).not.toHaveProperty('asset_id');

    const chunk = await putChunk(upload.url, file, CHUNK_GRANULE_BYTES, file.length);
    expect(chunk.status, chunk.describe).toBe(410);
    const whole = await putWholeFile(upload.url, fixtures.path('video720p'));
    expect(whole.status, whole.describe).toBe(410);
    expect(await assetsOfUpload(api, upload.id)).toEqual([]);
  });
});

// After the timeout test, so that a failure here (which restarts the worker) does not cost the
// timeout test its head start.
test.describe('connection reuse after an early 413 (MAX_INPUT_BYTES=1000000)', () => {
  let strictServer: KeyframeServer;
  let strictApi: Api;
  test.beforeAll(async () => {
    strictServer = await startKeyframe({ label: 'uploads-early-413', env: { MAX_INPUT_BYTES: '1000000' } });
    strictApi = new Api(strictServer.baseUrl, await strictServer.createToken());
  });
  test.afterAll(async () => {
    await disposeKeyframe(strictServer);
  });

  // The server gives up on the body once it is past the limit. Unless it then closes the connection
  // (or reads and discards the rest), the client is left pushing bytes nobody reads on a keep-alive
  // connection, and its next request on that connection is never answered (RFC 9112 §9.6).
  test('a 413 sent before the body was read to the end does not wedge the client\'s connection', async ({ fixtures }) => {
    const upload = await createUpload(strictApi);
    const response = await putWholeFile(upload.url, fixtures.path('video720p'), { chunkedTransfer: true });
    expect(response.status, response.describe).toBe(413);
    const next = await fetch(strictServer.url('/api/health'), { signal: AbortSignal.timeout(5_000) }).then(
      (answer) => `${answer.status}`,
      (error: unknown) => `no answer within 5 s (${String(error)})`,
    );
    expect(next, `the same client's next request after the 413 (which said Connection: ${response.headers.get('connection')})`).toBe('200');
  });
});
