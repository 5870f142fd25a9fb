import type { Page } from '@playwright/test';
import { beaconBody, simulatedView } from '../../lib/analytics/mux-embed-beacons';
import { Api } from '../support/api';
import { createAdmin, screenshot, signIn } from '../support/dashboard';
import type { KeyframeServer } from '../support/keyframe-server';
import { createPlayableAsset } from '../support/playback';
import { disposeKeyframe, expect, startKeyframe, test } from '../support/test';

// Playback analytics in the dashboard: views reported through the real collector (POST / with
// bodies shaped as mux-embed sends them) reach the analytics page's numbers, charts and breakdowns
// and the asset page, whose embed code points at the player page; the asset preview's own
// mux-embed beacons are counted too. Keyboard use and phone width like the other pages.

test.describe.configure({ mode: 'serial' });

const FIREFOX_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';
const CHROME_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

let server: KeyframeServer | undefined;
let api: Api | undefined;
let asset: { assetId: string; playbackId: string; title: string } | undefined;
test.beforeAll(async () => {
  server = await startKeyframe({ label: 'ui-analytics' });
  await createAdmin(server);
  api = new Api(server.baseUrl, await server.createToken());
});
test.afterAll(async () => disposeKeyframe(server));

const started = (): { keyframe: KeyframeServer; keyframeApi: Api } => {
  if (!server || !api) throw new Error('server not started');
  return { keyframe: server, keyframeApi: api };
};

const postBeacons = async (keyframe: KeyframeServer, userAgent: string, events: Array<Record<string, string | number | boolean>>) => {
  const response = await fetch(keyframe.url('/'), {
    method: 'POST',
    headers: { 'content-type': 'text/plain', 'user-agent': userAgent },
    body: beaconBody(events),
  });
  expect(response.status, await response.text()).toBe(200);
};

/** A view that starts, plays for `playingMs` and (unless `open`) ends, posted as mux-embed batches it. */
const reportView = async (
  keyframe: KeyframeServer,
  { viewId, playbackId, userAgent, viewerId, playingMs, open = false }: { viewId: string; playbackId: string; userAgent: string; viewerId: string; playingMs: number; open?: boolean },
) => {
  const view = simulatedView({
    viewId,
    sourceUrl: `${keyframe.baseUrl}/${playbackId}.m3u8`,
    pageUrl: 'https://blog.example.com/post?utm_source=x',
    muxViewerId: viewerId,
    startedAt: Date.now() - playingMs - 2000,
  });
  const first = [view.event('playerready'), view.event('viewstart'), view.event('play')];
  view.wait(800);
  first.push(view.event('playing', { view_time_to_first_frame: 800, video_source_height: 720 }));
  await postBeacons(keyframe, userAgent, first);
  view.wait(playingMs);
  const later = [
    view.event('hb', { player_playhead_time: playingMs, view_playing_time_ms_cumulative: playingMs, view_watch_time: playingMs + 800 }),
  ];
  if (!open) later.push(view.event('viewend'));
  await postBeacons(keyframe, userAgent, later);
};

const figure = (page: Page, key: string) => page.getByTestId(`figure-${key}`);

test('views reported to the collector reach the analytics page and the asset page', async ({ page, media, fixtures }, testInfo) => {
  test.setTimeout(180_000);
  const { keyframe, keyframeApi } = started();
  await signIn(page, keyframe);
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Analytics' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Analytics' })).toBeVisible();
  // Nothing reported yet: the page says where views come from, with this server's collector domain.
  const empty = page.getByTestId('analytics-empty');
  await expect(empty).toContainText('No views in this timeframe');
  await expect(empty).toContainText(`beaconCollectionDomain: 'localhost:${new URL(keyframe.baseUrl).port}'`);
  await expect(page.getByTestId('viewers-now')).toHaveText('0');

  const title = `Analytics clip ${Date.now()}`;
  const playable = await createPlayableAsset(keyframeApi, media.fileUrl(fixtures.file('video720p')), { meta: { title } });
  asset = { ...playable, title };

  // Two viewers in Firefox on Windows (one watched twice), one in Chrome on macOS still watching.
  const runId = Date.now().toString(36);
  await reportView(keyframe, { viewId: `${runId}-a`, playbackId: playable.playbackId, userAgent: FIREFOX_WINDOWS, viewerId: `${runId}-v1`, playingMs: 20_000 });
  await reportView(keyframe, { viewId: `${runId}-b`, playbackId: playable.playbackId, userAgent: FIREFOX_WINDOWS, viewerId: `${runId}-v1`, playingMs: 10_000 });
  await reportView(keyframe, { viewId: `${runId}-c`, playbackId: playable.playbackId, userAgent: CHROME_MAC, viewerId: `${runId}-v2`, playingMs: 30_000, open: true });
  // The collector writes views in batches: wait until the Data API counts all three.
  await expect
    .poll(async () => (await keyframeApi.get('/data/v1/metrics/views/overall')).json?.data?.total_views, { timeout: 15_000 })
    .toBe(3);

  await page.reload();
  await expect(figure(page, 'views')).toHaveText('3');
  await expect(figure(page, 'unique_viewers')).toHaveText('2');
  await expect(figure(page, 'playing_time_ms')).toHaveText('1 min');
  await expect(figure(page, 'video_startup_time_ms')).toHaveText('800 ms');
  await expect(page.getByTestId('viewers-now')).toHaveText('1', { timeout: 10_000 });

  // recharts drew the series: an area for views, a line for startup time.
  await expect(page.getByTestId('chart-views').locator('svg.recharts-surface')).toBeVisible();
  await expect(page.getByTestId('chart-views').locator('.recharts-area-area')).toHaveCount(1);
  await expect(page.getByTestId('chart-video_startup_time_ms').locator('.recharts-line-curve')).toHaveCount(1);

  const byAsset = page.getByTestId('breakdown-asset_id');
  await expect(byAsset.locator(`tr[data-field="${playable.assetId}"]`)).toContainText(title);
  await expect(byAsset.locator(`tr[data-field="${playable.assetId}"]`).getByTestId('breakdown-views')).toHaveText('3');
  const byBrowser = page.getByTestId('breakdown-browser');
  await expect(byBrowser.locator('tr[data-field="Firefox"]').getByTestId('breakdown-views')).toHaveText('2');
  await expect(byBrowser.locator('tr[data-field="Chrome"]').getByTestId('breakdown-views')).toHaveText('1');
  const byOs = page.getByTestId('breakdown-operating_system');
  await expect(byOs.locator('tr[data-field="Windows"]').getByTestId('breakdown-views')).toHaveText('2');
  await expect(byOs.locator('tr', { hasText: /mac ?OS/i }).getByTestId('breakdown-views')).toHaveText('1');
  await screenshot(page, testInfo, 'analytics');

  // Another timeframe asks again; the views are within the last hour as well.
  await page.getByRole('radio', { name: 'Last hour' }).check({ force: true });
  await expect(page.getByRole('radio', { name: 'Last hour' })).toBeChecked();
  await expect(figure(page, 'views')).toHaveText('3');

  // The asset page: its numbers, and the embed code for its public playback ID.
  await byAsset.getByRole('link', { name: title }).click();
  await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
  const assetNumbers = page.getByTestId('asset-analytics');
  await expect(assetNumbers.getByTestId('figure-views')).toHaveText('3');
  await expect(assetNumbers.getByTestId('figure-video_startup_time_ms')).toHaveText('800 ms');
  const playerUrl = `${keyframe.baseUrl}/player/${playable.playbackId}`;
  await expect(page.getByTestId('embed-code')).toHaveValue(new RegExp(`^<iframe src="${playerUrl.replace(/[.]/g, '\\.')}"`));
  await expect(page.getByTestId('player-page-link')).toHaveAttribute('href', playerUrl);
  await expect(page.getByRole('button', { name: /^Copy embed code/ })).toBeVisible();
  await screenshot(page, testInfo, 'asset-analytics');

  // The preview player reports its own view to the collector through mux-embed.
  const collectorUrl = `http://localhost:${new URL(keyframe.baseUrl).port}/`;
  const beacon = page.waitForResponse((response) => response.url() === collectorUrl && response.request().method() === 'POST', { timeout: 30_000 });
  // hls.js attaches its source after the page renders; a play() before that is aborted by the load
  // (seen on CI: "The play() request was interrupted by a new load request").
  const preview = page.getByTestId('preview-video');
  await expect.poll(() => preview.evaluate((video: HTMLVideoElement) => video.readyState), { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
  await preview.evaluate((video: HTMLVideoElement) => video.play());
  const beaconResponse = await beacon;
  expect(beaconResponse.status()).toBe(200);
  const sent = JSON.parse(beaconResponse.request().postData() ?? '{}') as { events?: Array<Record<string, unknown>> };
  expect(sent.events?.some((event) => event.pnm === 'keyframe-dashboard')).toBe(true);
  await expect
    .poll(async () => (await keyframeApi.get(`/data/v1/metrics/views/overall?filters[]=asset_id:${playable.assetId}`)).json?.data?.total_views, {
      timeout: 20_000,
    })
    .toBe(4);

  // The embed previewed on the page is the player page itself, playing with mux-player.
  await page.getByRole('button', { name: 'Preview the embedded player' }).click();
  const embedded = page.frameLocator('[data-testid="embed-preview"]');
  await expect(embedded.locator('mux-player')).toHaveAttribute('src', new RegExp(`/${playable.playbackId}\\.m3u8$`));
  await page.getByRole('button', { name: 'Hide the embedded player' }).click();
  await expect(page.getByTestId('embed-preview')).toHaveCount(0);

  // A view that ends in a fatal error is listed under Playback errors, with its share of the views.
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Analytics' }).click();
  const errors = page.getByTestId('playback-errors');
  await expect(errors).toContainText('No view ended in an error');
  const failing = simulatedView({ viewId: `${runId}-error`, sourceUrl: `${keyframe.baseUrl}/${playable.playbackId}.m3u8`, startedAt: Date.now() - 3_000 });
  const failed = [failing.event('viewstart'), failing.event('play')];
  failing.wait(1_000);
  failed.push(failing.event('error', { player_error_code: 3, player_error_message: 'The media could not be decoded.', player_error_severity: 'fatal' }), failing.event('viewend'));
  await postBeacons(keyframe, CHROME_MAC, failed);
  await expect.poll(async () => (await keyframeApi.get('/data/v1/errors')).json?.data?.length, { timeout: 15_000 }).toBe(1);
  // Of 5 or 6 views: the embedded player shown above may have reported one of its own.
  const totalViews = Number((await keyframeApi.get('/data/v1/metrics/views/overall')).json?.data?.total_views);
  expect([5, 6]).toContain(totalViews);
  await page.reload();
  const row = errors.locator('tr[data-error-id="3"]');
  await expect(row).toContainText('The media could not be decoded.');
  await expect(row.getByTestId('error-views')).toHaveText('1');
  await expect(row.getByTestId('error-percentage')).toHaveText(`${((1 / totalViews) * 100).toFixed(1)} %`);
});

test('works from the keyboard and at phone width (390 px)', async ({ page }, testInfo) => {
  const { keyframe } = started();
  if (!asset) throw new Error('the first test made no asset');
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, keyframe);

  const link = page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Analytics' });
  for (let step = 0; step < 20 && !(await link.evaluate((element) => element === document.activeElement)); step += 1) {
    await page.keyboard.press('Tab');
  }
  await expect(link).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'Analytics' })).toBeVisible();
  await expect(figure(page, 'views')).toBeVisible();

  // The timeframe is a radio group: one tab stop, arrow keys choose.
  const day = page.getByRole('radio', { name: 'Last 24 hours' });
  await expect(day).toBeChecked();
  for (let step = 0; step < 20 && !(await day.evaluate((element) => element === document.activeElement)); step += 1) {
    await page.keyboard.press('Tab');
  }
  await expect(day).toBeFocused();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByRole('radio', { name: 'Last 7 days' })).toBeChecked();
  await expect(page.getByRole('radio', { name: 'Last 7 days' })).toBeFocused();
  const outline = await page.getByRole('radio', { name: 'Last 7 days' }).evaluate((input) => getComputedStyle(input.parentElement!).outlineStyle);
  expect(outline, 'focus is visible').not.toBe('none');
  await expect(figure(page, 'views')).not.toHaveText('0');

  for (const pathname of ['/analytics', `/assets/${asset.assetId}`]) {
    await page.goto(keyframe.url(pathname));
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await expect(figure(page, 'views').first()).toBeVisible();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${pathname} fits 390 px`).toBeLessThanOrEqual(0);
  }
  await screenshot(page, testInfo, 'mobile-analytics');
});

test('the analytics routes want a dashboard session and a known timeframe and dimension', async ({ page }) => {
  const { keyframe } = started();
  const anonymous = await fetch(keyframe.url('/api/dashboard/analytics/summary'));
  expect(anonymous.status).toBe(401);
  await signIn(page, keyframe);
  const badTimeframe = await page.request.get(keyframe.url('/api/dashboard/analytics/summary?timeframe=2:weeks'));
  expect(badTimeframe.status()).toBe(400);
  expect(await badTimeframe.json()).toMatchObject({ error: { type: 'invalid_parameters', messages: [expect.stringContaining('timeframe')] } });
  const badDimension = await page.request.get(keyframe.url('/api/dashboard/analytics/breakdown?group_by=country'));
  expect(badDimension.status()).toBe(400);
  const monitoring = await page.request.get(keyframe.url('/api/dashboard/analytics/monitoring'));
  expect(await monitoring.json()).toEqual({
    data: { beacon_collection_domain: `localhost:${new URL(keyframe.baseUrl).port}`, env_key: 'keyframe' },
  });
});
