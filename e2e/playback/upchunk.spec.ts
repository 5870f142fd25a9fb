import { stat } from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser, type Page } from '@playwright/test';
import { Api, type Json } from '../support/api';
import { chromiumLaunchOptions } from '../../harness/chromium';
import { probeDuration } from '../support/fixtures';
import { startHlsPlayback, waitForHlsPlayback } from '../support/hls-page';
import type { KeyframeServer } from '../support/keyframe-server';
import { REPO_ROOT } from '../../harness/paths';
import { sharedMediaPath } from '../support/paths';
import { expect, multivariantUrl, test } from '../support/playback';
import { disposeKeyframe, startKeyframe } from '../support/test';
import { assetsOfUpload, CHUNK_GRANULE_BYTES, createUpload, getUpload, queryReceived, waitForUploadStatus } from '../support/uploads';

// The real @mux/upchunk (its browser build) in the system Chromium uploads a file picked in an
// <input type=file> to a Keyframe upload url from another origin, 256 KiB per chunk, exactly as a
// web app embedding UpChunk would. Then the asset it created plays in hls.js in the same page.
//
// The page lives on a made-up origin, http://uploader.test, served by page.route(). Playwright
// answers CORS preflights itself while any route is active, which would hide the server's own
// preflight handling, so the route is removed once the page is loaded and before anything talks to
// Keyframe: every preflight below is answered by the server. Chromium treats the routed page as a
// public, non-secure context and would block its requests to the server on 127.0.0.1 (Local
// Network Access), so that check is switched off for this browser.

const UPLOADER_ORIGIN = 'http://uploader.test';
const UPCHUNK_JS = path.join(REPO_ROOT, 'node_modules', '@mux', 'upchunk', 'dist', 'upchunk.js');
const CHUNK_SIZE_KIB = CHUNK_GRANULE_BYTES / 1024;

const PAGE = `<!doctype html>
<html>
<head><meta charset="utf-8"><title>Uploader</title></head>
<body>
<input type="file" id="file">
<script>
  // Runs one UpChunk upload of the picked file; resolves with every event it dispatched.
  window.runUpload = (endpoint, options) => new Promise((resolve) => {
    const file = document.getElementById('file').files[0];
    const events = [];
    const startedAt = performance.now();
    const record = (type, detail) => events.push({ type, ms: Math.round(performance.now() - startedAt), detail: detail ?? null });
    const finish = (outcome) => resolve({ outcome, events, file: { name: file.name, size: file.size, type: file.type } });
    const upload = UpChunk.createUpload({ endpoint, file, ...options });
    upload.on('attempt', (event) => record('attempt', { chunkNumber: event.detail.chunkNumber }));
    upload.on('attemptFailure', (event) => record('attemptFailure', { message: event.detail.message, status: event.detail.response ? event.detail.response.statusCode : null }));
    upload.on('chunkSuccess', (event) => record('chunkSuccess', {
      chunk: event.detail.chunk,
      attempts: event.detail.attempts,
      status: event.detail.response.statusCode,
      // Only readable here if the server lists Range in Access-Control-Expose-Headers.
      range: event.detail.response.headers.range ?? null,
    }));
    upload.on('progress', (event) => record('progress', event.detail));
    upload.on('success', () => { record('success'); finish('success'); });
    upload.on('error', (event) => { record('error', { message: event.detail.message, status: event.detail.response ? event.detail.response.statusCode : null }); finish('error'); });
  });
</script>
</body>
</html>`;

type UploadEvent = { type: string; ms: number; detail: Json };
type UploadRun = { outcome: 'success' | 'error'; events: UploadEvent[]; file: { name: string; size: number; type: string } };

let keyframe: KeyframeServer;
let api: Api;
let browser: Browser;

test.beforeAll(async () => {
  keyframe = await startKeyframe({ label: 'playback-upchunk' });
  api = new Api(keyframe.baseUrl, await keyframe.createToken());
  browser = await chromium.launch({
    ...chromiumLaunchOptions,
    args: [...(chromiumLaunchOptions.args ?? []), '--disable-features=LocalNetworkAccessChecks'],
  });
});

test.afterAll(async () => {
  await browser?.close();
  await disposeKeyframe(keyframe);
});

/** The uploader page on UPLOADER_ORIGIN with UpChunk loaded, its route already removed. */
const openUploader = async (consoleLines: string[]): Promise<Page> => {
  const page = await browser.newPage();
  page.on('console', (message) => consoleLines.push(`[${message.type()}] ${message.text()}`));
  page.on('pageerror', (error) => consoleLines.push(`[pageerror] ${error.message}`));
  await page.route(`${UPLOADER_ORIGIN}/**`, (route) =>
    route.request().url() === `${UPLOADER_ORIGIN}/`
      ? route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: PAGE })
      : route.fulfill({ status: 404, body: '' }),
  );
  await page.goto(`${UPLOADER_ORIGIN}/`);
  await page.addScriptTag({ path: UPCHUNK_JS });
  await page.unrouteAll({ behavior: 'wait' });
  return page;
};

const runUpload = (page: Page, endpoint: string, options: Record<string, unknown>): Promise<UploadRun> =>
  page.evaluate(
    ({ endpoint, options }) =>
      (window as unknown as { runUpload: (endpoint: string, options: Record<string, unknown>) => Promise<UploadRun> }).runUpload(endpoint, options),
    { endpoint, options },
  );

const eventsOf = (run: UploadRun, type: string): Json[] => run.events.filter((event) => event.type === type).map((event) => event.detail);

test('UpChunk in Chromium uploads a file cross-origin in 256 KiB chunks; the asset becomes ready and plays in hls.js', async ({
  playbackFixtures,
}, testInfo) => {
  const filePath = sharedMediaPath('london_h264_aac_360p_17s.mp4') ?? (await playbackFixtures.ensure('continuity720p'));
  const size = (await stat(filePath)).size;
  const expectedChunks = Math.ceil(size / CHUNK_GRANULE_BYTES);
  expect(expectedChunks, `${filePath} should take several chunks`).toBeGreaterThanOrEqual(4);

  const upload = await createUpload(api, { cors_origin: UPLOADER_ORIGIN, new_asset_settings: { playback_policies: ['public'] } });
  const consoleLines: string[] = [];
  const page = await openUploader(consoleLines);
  await page.setInputFiles('#file', filePath);

  const run = await runUpload(page, upload.url, { chunkSize: CHUNK_SIZE_KIB });
  await testInfo.attach('upchunk-events.json', { body: JSON.stringify({ run, console: consoleLines }, null, 2), contentType: 'application/json' });
  const errors = eventsOf(run, 'error');
  expect(run.outcome, `UpChunk outcome; errors ${JSON.stringify(errors)}; console ${consoleLines.join(' | ')}`).toBe('success');
  expect(errors).toEqual([]);
  expect(eventsOf(run, 'attemptFailure'), 'no chunk needed a retry').toEqual([]);
  expect(run.file.size).toBe(size);

  // One response per chunk: 308 with the received range while bytes are missing, 200 at the end.
  const chunks = eventsOf(run, 'chunkSuccess');
  expect(chunks.map((chunk) => chunk.chunk)).toEqual(Array.from({ length: expectedChunks }, (_, index) => index));
  chunks.forEach((chunk, index) => {
    const receivedEnd = Math.min((index + 1) * CHUNK_GRANULE_BYTES, size) - 1;
    if (index < expectedChunks - 1) {
      expect(chunk, `chunk ${index}`).toMatchObject({ status: 308, range: `bytes=0-${receivedEnd}`, attempts: 1 });
    } else {
      expect(chunk.status, `last chunk ${index}`).toBe(200);
    }
  });

  const progress = eventsOf(run, 'progress') as number[];
  expect(progress.length).toBeGreaterThanOrEqual(expectedChunks);
  for (let index = 1; index < progress.length; index += 1) {
    expect(progress[index]!, `progress never goes back (event ${index}: ${progress.slice(index - 1, index + 1)})`).toBeGreaterThanOrEqual(progress[index - 1]!);
  }
  expect(progress.at(-1), 'progress reaches 100 %').toBeCloseTo(100, 6);
  expect(run.events.at(-1)?.type).toBe('success');

  const done = await waitForUploadStatus(api, upload.id, ['asset_created', 'errored', 'cancelled', 'timed_out']);
  expect(done.status, JSON.stringify(done)).toBe('asset_created');
  const asset = await api.waitForStatus(done.asset_id, ['ready', 'errored'], 120_000);
  expect(asset.status, JSON.stringify(asset.errors)).toBe('ready');
  expect(asset.upload_id).toBe(upload.id);
  expect(asset.ingest_type).toBe('on_demand_direct_upload');
  expect(asset.duration).toBeCloseTo(await probeDuration(filePath), 1);
  const playbackId = asset.playback_ids?.find((entry: Json) => entry.policy === 'public')?.id as string | undefined;
  expect(playbackId, JSON.stringify(asset.playback_ids)).toBeTruthy();

  // The same page (still on the uploader's origin) plays what it uploaded.
  await startHlsPlayback(page, multivariantUrl(keyframe, playbackId!));
  const playback = await waitForHlsPlayback(page, { minSeconds: 4, timeoutMs: 90_000 });
  await testInfo.attach('playback.json', { body: JSON.stringify(playback, null, 2), contentType: 'application/json' });
  const uploadMs = run.events.at(-1)?.ms ?? null;
  console.log(
    `[upchunk] ${path.basename(filePath)} ${size} bytes in ${chunks.length} chunks, ${uploadMs} ms, ${progress.length} progress events; ` +
      `playback ${playback.currentTime.toFixed(2)} s, ${playback.decodedFrames} frames decoded, ${playback.levels} levels, ${playback.errors.length} hls.js errors`,
  );
  expect(playback.fatal, `fatal hls.js error: ${JSON.stringify(playback.errors)}`).toBeNull();
  expect(playback.levels).toBeGreaterThan(0);
  expect(playback.currentTime, `playback position; hls.js errors ${JSON.stringify(playback.errors)}`).toBeGreaterThanOrEqual(4);
  expect(playback.decodedFrames, 'frames decoded during 4 s of playback').toBeGreaterThanOrEqual(60);
  await page.close();
});

test('UpChunk from an origin the upload does not allow: the server refuses the preflight and UpChunk reports an error', async ({
  fixtures,
}, testInfo) => {
  const filePath = fixtures.path('video720p');
  const size = (await stat(filePath)).size;
  const upload = await createUpload(api, { cors_origin: 'http://someone-else.test' });
  const consoleLines: string[] = [];
  const page = await openUploader(consoleLines);
  await page.setInputFiles('#file', filePath);

  // A blocked request looks like a network error to UpChunk, which it retries: keep that short.
  const run = await runUpload(page, upload.url, { chunkSize: CHUNK_SIZE_KIB, attempts: 2, delayBeforeAttempt: 0.2 });
  await testInfo.attach('upchunk-events.json', { body: JSON.stringify({ run, console: consoleLines }, null, 2), contentType: 'application/json' });
  console.log(`[upchunk] refused origin: ${JSON.stringify(eventsOf(run, 'error'))}; ${consoleLines.filter((line) => /CORS/.test(line)).map((line) => line.replace(/'https?:[^']*'/, "'<upload url>'")).join(' | ')}`);
  expect(run.outcome, JSON.stringify(run.events)).toBe('error');
  expect(eventsOf(run, 'chunkSuccess')).toEqual([]);
  expect(eventsOf(run, 'success')).toEqual([]);
  expect(
    consoleLines.some((line) => /CORS/.test(line) && /preflight/i.test(line)),
    `Chromium should report the refused preflight: ${consoleLines.join(' | ')}`,
  ).toBe(true);

  // Nothing reached the upload.
  const received = await queryReceived(upload.url, size);
  expect(received.status, received.describe).toBe(308);
  expect(received.range, received.describe).toBeNull();
  expect((await getUpload(api, upload.id)).status).toBe('waiting');
  expect(await assetsOfUpload(api, upload.id)).toEqual([]);
  await page.close();
});
