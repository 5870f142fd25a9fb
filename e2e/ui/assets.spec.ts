import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { createAdmin, screenshot, signIn } from '../support/dashboard';
import type { KeyframeServer } from '../support/keyframe-server';
import { sharedMediaPath } from '../support/paths';
import { disposeKeyframe, expect, startKeyframe, test } from '../support/test';

// Assets in the dashboard: create from a URL and watch the status badge turn ready without a
// reload, the asset page's preview player, and drag-and-drop uploads that become ready assets.

test.describe.configure({ mode: 'serial' });

let server: KeyframeServer | undefined;
test.beforeAll(async () => {
  server = await startKeyframe({ label: 'ui-assets' });
  await createAdmin(server);
});
test.afterAll(async () => disposeKeyframe(server));

const started = (): KeyframeServer => {
  if (!server) throw new Error('server not started');
  return server;
};

const statusBadge = (page: Page, title: string) => page.getByRole('row').filter({ hasText: title }).locator('[data-status]');

let createdAssetTitle = '';

test('creates an asset from a URL and the badge turns ready without reloading', async ({ page, media, fixtures }, testInfo) => {
  const keyframe = started();
  await signIn(page, keyframe);

  await page.getByRole('button', { name: 'Create from URL' }).click();
  const dialog = page.getByRole('dialog', { name: 'Create an asset from a URL' });
  await expect(dialog).toBeVisible();
  // The API's validation messages are shown as they are.
  await dialog.getByLabel('Video URL').fill('ftp://example.com/video.mp4');
  await dialog.getByRole('button', { name: 'Create asset' }).click();
  await expect(dialog.getByRole('alert').filter({ hasText: 'url' })).toBeVisible();
  await screenshot(page, testInfo, 'create-asset-dialog-error');

  createdAssetTitle = `Test pattern ${Date.now()}`;
  await dialog.getByLabel('Video URL').fill(media.fileUrl(fixtures.file('video720p')));
  await dialog.getByLabel('Title (optional)').fill(createdAssetTitle);
  await dialog.getByLabel('Video quality').selectOption('basic');
  await dialog.getByRole('button', { name: 'Create asset' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('status').filter({ hasText: 'created' })).toBeVisible();

  const navigations: string[] = [];
  page.on('framenavigated', (frame) => navigations.push(frame.url()));
  await expect(statusBadge(page, createdAssetTitle)).toHaveAttribute('data-status', /preparing|ready/);
  await expect(statusBadge(page, createdAssetTitle)).toHaveAttribute('data-status', 'ready', { timeout: 60_000 });
  expect(navigations, 'the page was not reloaded').toEqual([]);
  const row = page.getByRole('row').filter({ hasText: createdAssetTitle });
  await expect(row).toContainText('0:04');
  await expect(row).toContainText('basic');
  await screenshot(page, testInfo, 'assets');

  // Search and status filter narrow the table.
  await page.getByLabel('Search by ID or title').fill('no such asset');
  await expect(page.getByText('No assets match this search or filter.')).toBeVisible();
  await page.getByLabel('Search by ID or title').fill(createdAssetTitle.slice(0, 12));
  await expect(row).toBeVisible();
  await page.getByLabel('Status').selectOption('errored');
  await expect(page.getByText('No assets match this search or filter.')).toBeVisible();
});

test('the asset page plays the asset in the preview player', async ({ page }, testInfo) => {
  test.setTimeout(150_000);
  const keyframe = started();
  await signIn(page, keyframe);
  await page.getByRole('link', { name: createdAssetTitle }).click();
  await expect(page.getByRole('heading', { name: createdAssetTitle })).toBeVisible();
  await expect(page.getByTestId('stream-url')).toHaveText(new RegExp(`^${keyframe.baseUrl}/[0-9A-Za-z]+\\.m3u8$`));
  await expect(page.getByText('API JSON')).toBeVisible();

  const video = page.getByTestId('preview-video');
  // The quality menu lists the ladder once the playlist is parsed.
  await expect(page.getByLabel('Quality').locator('option')).not.toHaveCount(1, { timeout: 30_000 });
  // hls.js may still be setting up the media element when the menu fills, and a play() it
  // interrupts is rejected (AbortError) as it would be for a user's click: press play again then.
  const playing = () =>
    video.evaluate(async (element: HTMLVideoElement) => {
      if (element.paused) await element.play().catch((error: unknown) => {
        if (!(error instanceof DOMException && error.name === 'AbortError')) throw error;
      });
      return element.currentTime;
    });
  await expect.poll(playing, { timeout: 120_000, intervals: [500] }).toBeGreaterThan(1);
  // The ladder shows what playing just encoded: some rung now has segments on disk.
  const ladder = page.getByTestId('rendition-ladder');
  await expect(ladder.locator('[data-rendition]')).not.toHaveCount(0);
  const encodedCounts = async () =>
    (await ladder.getByTestId('encoded-count').allTextContents()).map((text) => Number(/^(\d+) of/.exec(text)?.[1] ?? 0));
  await expect.poll(async () => Math.max(...(await encodedCounts())), { timeout: 15_000 }).toBeGreaterThan(0);
  await screenshot(page, testInfo, 'asset-detail');
});

const fileForUpload = async (fixturePath: string): Promise<{ name: string; base64: string }> => {
  const file = sharedMediaPath('flower_h264_aac_540p_5s.mp4') ?? fixturePath;
  return { name: path.basename(file), base64: (await readFile(file)).toString('base64') };
};

test('files dropped on the page upload with progress and become ready assets', async ({ page, fixtures }, testInfo) => {
  test.setTimeout(120_000);
  const keyframe = started();
  await signIn(page, keyframe);
  await page.getByRole('link', { name: 'Uploads' }).click();
  await expect(page.getByRole('heading', { name: 'Uploads' })).toBeVisible();
  await page.getByLabel('Playback policy').selectOption('public');

  const upload = await fileForUpload(fixtures.path('videoSmall'));
  // A real drop event whose DataTransfer carries a File built in the page.
  await page.getByTestId('upload-drop-area').evaluate((target, { name, base64 }) => {
    const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
    const transfer = new DataTransfer();
    transfer.items.add(new File([bytes], name, { type: 'video/mp4' }));
    for (const type of ['dragenter', 'dragover', 'drop']) {
      target.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: transfer }));
    }
  }, upload);

  const item = page.getByRole('listitem').filter({ hasText: upload.name });
  await expect(item.getByRole('progressbar', { name: `Upload progress of ${upload.name}` })).toBeVisible();
  await expect(item).toHaveAttribute('data-upload-status', 'asset_created', { timeout: 60_000 });
  await expect(item.getByRole('progressbar')).toHaveAttribute('value', '100');
  await expect(item.locator('[data-status]')).toHaveAttribute('data-status', 'ready', { timeout: 60_000 });
  await screenshot(page, testInfo, 'uploads');

  await item.getByRole('link').click();
  await expect(page).toHaveURL(/\/assets\/[0-9A-Za-z]+$/);
  await expect(page.getByText('on_demand_direct_upload', { exact: true })).toBeVisible();
});

test('an upload can be paused, resumed and cancelled', async ({ page, fixtures }, testInfo) => {
  const keyframe = started();
  await signIn(page, keyframe);
  await page.goto(keyframe.url('/uploads'));
  // Hold the file's bytes in flight so the upload stays in progress for as long as the test needs.
  let releaseBytes: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (releaseBytes = resolve));
  const heldRequests: string[] = [];
  await page.route(/\/upload\/[0-9A-Za-z]+\?/, async (route) => {
    heldRequests.push(route.request().url());
    await held;
    await route.abort().catch(() => undefined);
  });
  const created = page.waitForResponse((response) => response.url().endsWith('/api/dashboard/uploads') && response.status() === 201);

  const upload = await fileForUpload(fixtures.path('videoSmall'));
  await page.getByLabel('Choose video files to upload').setInputFiles({
    name: upload.name,
    mimeType: 'video/mp4',
    buffer: Buffer.from(upload.base64, 'base64'),
  });
  const uploadId = ((await (await created).json()) as { data: { id: string } }).data.id;
  const item = page.getByRole('listitem').filter({ hasText: upload.name });
  await expect(item).toHaveAttribute('data-upload-status', 'uploading');
  await expect.poll(() => heldRequests.length).toBeGreaterThan(0);

  await item.getByRole('button', { name: `Pause ${upload.name}` }).click();
  await expect(item).toHaveAttribute('data-upload-status', 'paused');
  await item.getByRole('button', { name: `Resume ${upload.name}` }).click();
  await expect(item).toHaveAttribute('data-upload-status', 'uploading');
  await screenshot(page, testInfo, 'upload-in-progress');

  await item.getByRole('button', { name: `Cancel ${upload.name}` }).click();
  await expect(item).toHaveAttribute('data-upload-status', 'cancelled');
  await expect(page.getByRole('status').filter({ hasText: `Cancelled ${upload.name}.` })).toBeVisible();
  releaseBytes();
  const status = await page.request.get(keyframe.url(`/api/dashboard/uploads/${uploadId}`));
  expect(((await status.json()) as { data: { status: string } }).data.status).toBe('cancelled');
});

test('an errored asset explains its failure in plain words, and can be deleted', async ({ page, media }, testInfo) => {
  const keyframe = started();
  await signIn(page, keyframe);
  await page.getByRole('button', { name: 'Create from URL' }).click();
  const dialog = page.getByRole('dialog', { name: 'Create an asset from a URL' });
  await dialog.getByLabel('Video URL').fill(media.missingUrl);
  await dialog.getByLabel('Title (optional)').fill('Missing input');
  await dialog.getByRole('button', { name: 'Create asset' }).click();
  await expect(dialog).toBeHidden();

  await page.getByRole('link', { name: 'Missing input' }).click();
  // The asset page polls while the asset prepares, so the failure appears without a reload.
  await expect(page.getByRole('alert').filter({ hasText: 'Keyframe could not download the input file.' })).toBeVisible({
    timeout: 30_000,
  });
  await expect(page.getByText('This asset cannot be played.')).toBeVisible();
  await page.getByText('API JSON').click();
  await expect(page.locator('pre')).toContainText('"download_failed"');
  await screenshot(page, testInfo, 'asset-errored');

  await page.getByRole('button', { name: 'Delete asset' }).click();
  await page.getByRole('dialog', { name: 'Delete this asset?' }).getByRole('button', { name: 'Delete asset' }).click();
  await expect(page).toHaveURL(/\/assets$/);
  await expect(page.getByRole('link', { name: 'Missing input' })).toHaveCount(0);
});
