import type { Page } from '@playwright/test';
import { Api, basicAuth, expectApiError, type ApiResponse } from '../support/api';
import { createAdmin, screenshot, signIn } from '../support/dashboard';
import { httpGet, parseMediaPlaylist } from '../support/hls';
import type { KeyframeServer } from '../support/keyframe-server';
import { createPlayableAsset, expect, loadMultivariant, multivariantUrl, test } from '../support/playback';
import { disposeKeyframe, startKeyframe } from '../support/test';

// The encoding load for operators: GET /api/encoding-load (dashboard session or access token) and
// the dashboard's status strip and panel, which follow real just-in-time encodes as they run.

test.describe.configure({ mode: 'serial' });

// One encoder, so a handful of cold segments is enough to keep it busy with a queue behind it.
const ENCODER_LIMIT = 1;

let server: KeyframeServer | undefined;
test.beforeAll(async () => {
  server = await startKeyframe({ label: 'ui-encoding-load', env: { JIT_ENCODE_CONCURRENCY: String(ENCODER_LIMIT) } });
  await createAdmin(server);
});
test.afterAll(async () => disposeKeyframe(server));

const started = (): KeyframeServer => {
  if (!server) throw new Error('server not started');
  return server;
};

const expectEncodingLoad = (response: ApiResponse) => {
  expect(response.status, response.text).toBe(200);
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(response.json).toEqual({
    data: {
      at: expect.any(String),
      encoderLimit: ENCODER_LIMIT,
      running: expect.any(Number),
      queued: expect.any(Number),
      queuedByKind: { onDemand: expect.any(Number), prefetch: expect.any(Number), audio: expect.any(Number), background: expect.any(Number) },
      deadlineMisses: expect.any(Number),
      rungCosts: expect.any(Array),
    },
  });
  expect(Number.isNaN(Date.parse(response.json.data.at))).toBe(false);
};

test('GET /api/encoding-load answers 401 without credentials and 200 with an access token', async () => {
  const keyframe = started();
  const api = new Api(keyframe.baseUrl);

  const anonymous = await api.get('/api/encoding-load');
  expectApiError(anonymous, 401, 'unauthorized');
  expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic /);
  expectApiError(await api.get('/api/encoding-load', { auth: { id: 'nope', secret: 'wrong' } }), 401, 'unauthorized');

  // Reading the load is a read: a read-only token will do.
  const readOnly = await keyframe.createToken({ readOnly: true });
  expectEncodingLoad(await api.as(readOnly).get('/api/encoding-load'));

  // A revoked token is refused at once.
  const revoked = await keyframe.createToken();
  await keyframe.revokeToken(revoked.id);
  expectApiError(await api.as(revoked).get('/api/encoding-load'), 401, 'unauthorized');
});

test('GET /api/encoding-load answers 200 to a dashboard session', async ({ page }) => {
  const keyframe = started();
  await signIn(page, keyframe);
  const response = await page.request.get(keyframe.url('/api/encoding-load'));
  expectEncodingLoad({ status: response.status(), headers: new Headers(response.headers()), json: await response.json(), text: '' });

  // Credentials that are sent decide alone, even next to a valid session cookie.
  const wrongToken = await page.request.get(keyframe.url('/api/encoding-load'), { headers: { authorization: basicAuth({ id: 'nope', secret: 'wrong' }) } });
  expect(wrongToken.status()).toBe(401);
});

const strip = (page: Page) => page.getByTestId('encoding-load-strip');
const queueCount = (page: Page, kind: string) => page.locator(`[data-queue-kind="${kind}"]`).getByTestId('queue-count');

// A fresh asset's audio track and segment 0 are encoded around the time it turns ready; the tests
// that watch the load change start from an idle encoder.
const expectIdle = async (page: Page) => {
  await expect(strip(page)).toContainText('Idle', { timeout: 60_000 });
  await expect(strip(page)).toHaveAttribute('data-running', '0');
};

test('every dashboard page shows the encoding load, which links to a panel that explains it', async ({ page }, testInfo) => {
  const keyframe = started();
  await signIn(page, keyframe);
  for (const pathname of ['/assets', '/uploads', '/access-tokens', '/webhooks']) {
    await page.goto(keyframe.url(pathname));
    await expect(strip(page)).toContainText('Encoding');
    await expect(strip(page)).toContainText('Idle');
  }

  await page.getByRole('link', { name: /^Encoding/ }).click();
  await expect(page).toHaveURL(/\/encoding-load$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Encoding load' })).toBeVisible();
  await expect(strip(page)).toHaveAttribute('aria-current', 'page');
  await expect(page.getByTestId('encoders-busy')).toHaveText(`0 of ${ENCODER_LIMIT}`);
  await expect(page.getByTestId('queued-total')).toHaveText('0');
  await expect(page.getByTestId('deadline-misses')).toHaveText('0');
  for (const kind of ['onDemand', 'prefetch', 'audio', 'background']) {
    await expect(queueCount(page, kind)).toHaveText('0');
  }
  await expect(page.getByText('No encodes measured since the server started.')).toBeVisible();
  await screenshot(page, testInfo, 'encoding-load-idle');
});

test('the strip and the panel follow real just-in-time encodes and return to idle', async ({ page, playbackMedia, playbackFixtures }, testInfo) => {
  test.setTimeout(240_000);
  const keyframe = started();
  const api = new Api(keyframe.baseUrl, await keyframe.createToken());
  // 30 s of 1080p: the top rung's nine cold segments keep one encoder busy with a queue behind it.
  const input = playbackMedia.fileUrl(playbackFixtures.file('long1080p'));
  await playbackFixtures.ensure('long1080p');
  const { playbackId } = await createPlayableAsset(api, input);
  const multivariant = await loadMultivariant(multivariantUrl(keyframe, playbackId));
  const top = multivariant.video.reduce((best, variant) => (variant.bandwidth > best.bandwidth ? variant : best));
  const media = await httpGet(top.url);
  expect(media.status, media.text).toBe(200);
  const segments = parseMediaPlaylist(media.text, top.url).segments;
  expect(segments.length).toBeGreaterThan(3);

  await signIn(page, keyframe);
  await strip(page).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Encoding load' })).toBeVisible();
  await expectIdle(page);

  // Viewers each starting somewhere else on the top rung, all at once (distinct players: a starting
  // one is never steered to a cheaper rung, so every request is encoded and served).
  const fetches = Promise.all(
    segments.map((segment, index) => httpGet(segment.url, { timeoutMs: 200_000, headers: { 'user-agent': `encoding-load-viewer-${index}` } })),
  );

  await expect(strip(page)).toHaveAttribute('data-running', String(ENCODER_LIMIT));
  await expect(strip(page)).toHaveAttribute('data-queued', /^[1-9]\d*$/);
  await expect(strip(page)).toContainText(new RegExp(`${ENCODER_LIMIT}/${ENCODER_LIMIT} busy · \\d+ queued`));
  await expect(page.getByTestId('encoders-busy')).toHaveText(`${ENCODER_LIMIT} of ${ENCODER_LIMIT}`);
  await expect(page.getByTestId('queued-total')).not.toHaveText('0');
  await expect(queueCount(page, 'onDemand')).not.toHaveText('0');
  await screenshot(page, testInfo, 'encoding-load-busy');

  const responses = await fetches;
  for (const response of responses) expect(response.status, `${response.url}: ${response.text.slice(0, 200)}`).toBe(200);
  await expectIdle(page);
  await expect(page.getByTestId('queued-total')).toHaveText('0');
});

test('works from the keyboard and at phone width (390 px)', async ({ page }, testInfo) => {
  const keyframe = started();
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, keyframe);
  await expect(strip(page)).toBeInViewport();

  const link = page.getByRole('link', { name: /^Encoding/ });
  for (let step = 0; step < 20 && !(await link.evaluate((element) => element === document.activeElement)); step += 1) {
    await page.keyboard.press('Tab');
  }
  await expect(link).toBeFocused();
  expect(await link.evaluate((element) => getComputedStyle(element).outlineStyle), 'focus is visible').not.toBe('none');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'Encoding load' })).toBeVisible();
  await expect(page.getByTestId('encoders-busy')).toBeVisible();

  for (const pathname of ['/assets', '/encoding-load']) {
    await page.goto(keyframe.url(pathname));
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await expect(strip(page)).toBeInViewport();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${pathname} fits 390 px`).toBeLessThanOrEqual(0);
  }
  await screenshot(page, testInfo, 'mobile-encoding-load');
});
