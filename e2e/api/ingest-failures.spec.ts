import { existsSync, readdirSync } from 'node:fs';
import { Api, expectApiError, type Json } from '../support/api';
import { fileSize, type Fixtures } from '../support/fixtures';
import { assetDirsOf, dataDirsOf, getFreePort, type KeyframeServer } from '../support/keyframe-server';
import type { MediaServer } from '../../harness/media-server';
import { disposeKeyframe, expect, startKeyframe, test } from '../support/test';

// Inputs that cannot become an asset. Problems with the media itself are accepted (201) and end in
// `errored` with `errors: {type, messages}`; URLs that may not be fetched at all are a 400.

/** Messages must read as plain sentences: no stack traces, markup, object dumps or server paths. */
const expectPlainTextMessages = (messages: unknown, server: KeyframeServer) => {
  expect(Array.isArray(messages), `messages: ${JSON.stringify(messages)}`).toBe(true);
  const list = messages as unknown[];
  expect(list.length).toBeGreaterThan(0);
  for (const message of list) {
    expect(typeof message).toBe('string');
    const text = message as string;
    expect(text.trim().length).toBeGreaterThan(0);
    expect(text.length).toBeLessThan(1000);
    expect(text).not.toMatch(/\n\s*at\s/); // stack trace
    expect(text).not.toMatch(/<\/?[a-z][^>]*>/i); // markup
    expect(text).not.toContain('[object ');
    for (const dataDir of dataDirsOf(server)) expect(text).not.toContain(dataDir);
  }
};

/** The asset's folder, if any (on any node), holds no partial download. */
const expectNoPartialFiles = (server: KeyframeServer, assetId: string) => {
  for (const dir of assetDirsOf(server, assetId)) {
    const leftovers = existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.part')) : [];
    expect(leftovers, `files in ${dir}`).toEqual([]);
  }
};

const createAndSettle = async (api: Api, url: string, timeoutMs = 40_000): Promise<{ created: Json; settled: Json }> => {
  const created = await api.createAsset({ inputs: [{ url }], playback_policies: ['public'] });
  expect(created.status).toBe('preparing');
  const settled = await api.waitForStatus(created.id, ['ready', 'errored'], timeoutMs);
  return { created, settled };
};

test.describe('broken inputs (ALLOW_PRIVATE_INPUT_URLS=true)', () => {
  let server: KeyframeServer;
  let api: Api;
  test.beforeAll(async () => {
    server = await startKeyframe({ label: 'ingest-failures' });
    api = new Api(server.baseUrl, await server.createToken());
  });
  test.afterAll(async () => {
    await disposeKeyframe(server);
  });

  const cases: Array<{
    name: string;
    url: (media: MediaServer, fixtures: Fixtures) => Promise<string> | string;
    type: 'download_failed' | 'invalid_input';
    mention?: RegExp;
  }> = [
    { name: 'URL answering 404', url: (media) => media.missingUrl, type: 'download_failed', mention: /404/ },
    {
      name: 'nothing listening on the port',
      url: async () => `http://127.0.0.1:${await getFreePort()}/video.mp4`,
      type: 'download_failed',
      mention: /connect/i,
    },
    { name: 'a text file', url: (media, fixtures) => media.fileUrl(fixtures.file('text')), type: 'invalid_input' },
    { name: 'random bytes named .mp4', url: (media, fixtures) => media.fileUrl(fixtures.file('corrupt')), type: 'invalid_input' },
    // Observed: an empty body is reported as a failed download (nothing was received).
    { name: 'a zero-byte file', url: (media, fixtures) => media.fileUrl(fixtures.file('empty')), type: 'download_failed' },
    {
      name: 'the first half of a faststart MP4',
      url: (media, fixtures) => media.fileUrl(fixtures.file('truncated')),
      type: 'invalid_input',
    },
  ];

  for (const { name, url, type, mention } of cases) {
    test(`${name} → 201, then errored with ${type}`, async ({ media, fixtures }) => {
      const { settled } = await createAndSettle(api, await url(media, fixtures));
      expect(settled.status, JSON.stringify(settled)).toBe('errored');
      expect(settled.errors?.type, JSON.stringify(settled.errors)).toBe(type);
      expectPlainTextMessages(settled.errors?.messages, server);
      if (mention) expect(settled.errors.messages.join(' ')).toMatch(mention);
      expect(settled.tracks ?? []).toEqual([]);
      expectNoPartialFiles(server, settled.id);
    });
  }
});

test.describe('download timeout (INPUT_DOWNLOAD_TIMEOUT_SECONDS=3)', () => {
  let server: KeyframeServer;
  let api: Api;
  test.beforeAll(async () => {
    server = await startKeyframe({ label: 'download-timeout', env: { INPUT_DOWNLOAD_TIMEOUT_SECONDS: '3' } });
    api = new Api(server.baseUrl, await server.createToken());
  });
  test.afterAll(async () => {
    await disposeKeyframe(server);
  });

  test('a body that trickles forever → errored download_failed after ~3 s, no source.part left', async ({ media, fixtures }) => {
    const url = media.slowUrl(fixtures.file('video720p'));
    const startedAt = Date.now();
    const created = await api.createAsset({ inputs: [{ url }] });
    await media.waitForRequest(new URL(url).pathname);
    const settled = await api.waitForStatus(created.id, ['ready', 'errored'], 30_000);
    const elapsedMs = Date.now() - startedAt;

    expect(settled.status, JSON.stringify(settled)).toBe('errored');
    expect(settled.errors?.type).toBe('download_failed');
    expectPlainTextMessages(settled.errors?.messages, server);
    expect(settled.errors.messages.join(' ')).toMatch(/time|3 s/i);
    expect(elapsedMs).toBeGreaterThanOrEqual(3_000);
    expect(elapsedMs, 'errored within the 3 s timeout plus polling/processing slack').toBeLessThan(3_000 + 6_000);
    expectNoPartialFiles(server, created.id);
    for (const dir of assetDirsOf(server, created.id)) expect(existsSync(`${dir}/source`)).toBe(false);
  });
});

test.describe('size limit (MAX_INPUT_BYTES=100000)', () => {
  const LIMIT = 100_000;
  let server: KeyframeServer;
  let api: Api;
  test.beforeAll(async () => {
    server = await startKeyframe({ label: 'max-bytes', env: { MAX_INPUT_BYTES: String(LIMIT) } });
    api = new Api(server.baseUrl, await server.createToken());
  });
  test.afterAll(async () => {
    await disposeKeyframe(server);
  });

  test('a larger file → errored, message mentions the limit', async ({ media, fixtures }) => {
    expect(await fileSize(fixtures.path('video720p'))).toBeGreaterThan(LIMIT);
    const { settled } = await createAndSettle(api, media.fileUrl(fixtures.file('video720p')));
    expect(settled.status, JSON.stringify(settled)).toBe('errored');
    expect(settled.errors?.type).toBe('download_failed');
    expectPlainTextMessages(settled.errors?.messages, server);
    const text = settled.errors.messages.join(' ');
    expect(text).toMatch(/limit/i);
    expect(text).toMatch(/97\.7\s?KiB|100[\s,.]?000|100\s?kB/i);
    expectNoPartialFiles(server, settled.id);
  });

  test('a file under the limit still becomes ready', async ({ media, fixtures }) => {
    expect(await fileSize(fixtures.path('videoSmall'))).toBeLessThan(LIMIT);
    const { settled } = await createAndSettle(api, media.fileUrl(fixtures.file('videoSmall')));
    expect(settled.status, JSON.stringify(settled.errors)).toBe('ready');
  });
});

test.describe('duration limit (MAX_INPUT_DURATION_SECONDS=2)', () => {
  let server: KeyframeServer;
  let api: Api;
  test.beforeAll(async () => {
    server = await startKeyframe({ label: 'max-duration', env: { MAX_INPUT_DURATION_SECONDS: '2' } });
    api = new Api(server.baseUrl, await server.createToken());
  });
  test.afterAll(async () => {
    await disposeKeyframe(server);
  });

  test('a 4 s file → errored invalid_input', async ({ media, fixtures }) => {
    const { settled } = await createAndSettle(api, media.fileUrl(fixtures.file('video720p')));
    expect(settled.status, JSON.stringify(settled)).toBe('errored');
    expect(settled.errors?.type).toBe('invalid_input');
    expectPlainTextMessages(settled.errors?.messages, server);
    expect(settled.errors.messages.join(' ')).toMatch(/duration|long/i);
  });

  test('a 1 s file still becomes ready', async ({ media, fixtures }) => {
    const { settled } = await createAndSettle(api, media.fileUrl(fixtures.file('videoSmall')));
    expect(settled.status, JSON.stringify(settled.errors)).toBe('ready');
  });
});

test.describe('SSRF protection (ALLOW_PRIVATE_INPUT_URLS unset)', () => {
  let server: KeyframeServer;
  let api: Api;
  test.beforeAll(async () => {
    server = await startKeyframe({ label: 'ssrf', env: { ALLOW_PRIVATE_INPUT_URLS: undefined } });
    api = new Api(server.baseUrl, await server.createToken());
  });
  test.afterAll(async () => {
    await disposeKeyframe(server);
  });

  const targets: Array<{ name: string; url: (media: MediaServer, probe: string) => string }> = [
    { name: 'loopback IPv4 (the media server)', url: (media, probe) => `http://127.0.0.1:${media.port}/${probe}` },
    { name: 'localhost (the media server)', url: (media, probe) => `http://localhost:${media.port}/${probe}` },
    { name: 'cloud metadata link-local', url: () => 'http://169.254.169.254/latest/meta-data/' },
    { name: 'IPv6 loopback', url: () => 'http://[::1]/' },
    { name: 'decimal-encoded 127.0.0.1', url: () => 'http://2130706433/' },
    { name: 'shortened 127.1', url: () => 'http://127.1/' },
    { name: 'IPv4-mapped IPv6 loopback', url: () => 'http://[::ffff:127.0.0.1]/' },
    { name: 'RFC 1918 10/8', url: () => 'http://10.0.0.1/a.mp4' },
    { name: 'RFC 1918 192.168/16', url: () => 'http://192.168.1.1/a.mp4' },
    { name: 'unspecified 0.0.0.0', url: (media, probe) => `http://0.0.0.0:${media.port}/${probe}` },
    { name: 'ftp scheme', url: () => 'ftp://example.com/a.mp4' },
    { name: 'file scheme', url: () => 'file:///etc/passwd' },
  ];

  for (const [index, { name, url }] of targets.entries()) {
    test(`${name} → 400 invalid_parameters, nothing created or fetched`, async ({ media }) => {
      const probe = `ssrf-probe-${index}-${Date.now()}.mp4`;
      const target = url(media, probe);
      for (const body of [{ inputs: [{ url: target }] }, { input: target }]) {
        expectApiError(await api.post('/video/v1/assets', body), 400, 'invalid_parameters', /url/i);
      }
      expect(await api.listAllAssetIds()).toEqual([]);
      expect(media.requestsMatching(probe)).toEqual([]);
    });
  }
});
