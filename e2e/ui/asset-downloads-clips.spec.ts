import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { Api } from '../support/api';
import { createAdmin, screenshot, signIn } from '../support/dashboard';
import type { KeyframeServer } from '../support/keyframe-server';
import { disposeKeyframe, expect, startKeyframe, test } from '../support/test';

// The asset page's MP4 downloads (add, download, delete), master access switch, "create clip" from
// the preview player's position, and the inputs panel showing a watermark.

test.describe.configure({ mode: 'serial' });

let server: KeyframeServer | undefined;
let api: Api;
let assetId = '';
test.beforeAll(async ({ media, fixtures }) => {
  test.setTimeout(120_000);
  server = await startKeyframe({ label: 'ui-downloads-clips' });
  await createAdmin(server);
  api = new Api(server.baseUrl, await server.createToken());
  const created = await api.createAsset({ inputs: [{ url: media.fileUrl(fixtures.file('video720p')) }], playback_policies: ['public'], meta: { title: 'Downloads and clips' } });
  assetId = created.id;
  await api.waitForStatus(assetId, ['ready']);
});
test.afterAll(async () => disposeKeyframe(server));

const started = (): KeyframeServer => {
  if (!server) throw new Error('server not started');
  return server;
};

const openAsset = async (page: Page, id: string) => {
  const keyframe = started();
  await signIn(page, keyframe);
  await page.goto(`${keyframe.baseUrl}/assets/${id}`);
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
};

test('an MP4 added on the asset page becomes ready, downloads as an attachment, and can be deleted', async ({ page }, testInfo) => {
  test.setTimeout(150_000);
  await openAsset(page, assetId);
  const panel = page.getByRole('region', { name: 'MP4 downloads' });
  await expect(panel.getByText('No MP4 files.')).toBeVisible();
  await panel.getByLabel('Resolution').selectOption('highest');
  await panel.getByRole('button', { name: 'Add MP4' }).click();
  const row = panel.getByTestId('static-renditions').getByRole('listitem').filter({ hasText: 'highest.mp4' });
  await expect(row.locator('[data-status]')).toHaveAttribute('data-status', /preparing|ready/);
  // The page polls while the file is prepared: no reload.
  await expect(row.locator('[data-status]')).toHaveAttribute('data-status', 'ready', { timeout: 120_000 });
  await expect(row).toContainText('1280×720');
  const link = row.getByRole('link', { name: 'Download highest.mp4' });
  const href = await link.getAttribute('href');
  expect(href).toMatch(/\/[0-9A-Za-z]+\/highest\.mp4\?download=highest\.mp4$/);
  const download = await page.request.get(href!);
  expect(download.status()).toBe(200);
  expect(download.headers()['content-type']).toBe('video/mp4');
  expect(download.headers()['content-disposition']).toContain('attachment');
  expect((await download.body()).subarray(4, 8).toString('latin1'), 'an MP4 (ftyp first)').toBe('ftyp');
  await screenshot(page, testInfo, 'asset-mp4-downloads');

  await row.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete MP4' }).click();
  await expect(panel.getByText('No MP4 files.')).toBeVisible();
  const asset = (await api.get(`/video/v1/assets/${assetId}`)).json.data;
  expect(asset.static_renditions?.files ?? []).toEqual([]);
});

test('the master access switch makes a master that downloads without credentials, and removes it', async ({ page, playwright }) => {
  test.setTimeout(120_000);
  await openAsset(page, assetId);
  const panel = page.getByRole('region', { name: 'Master access' });
  const toggle = panel.getByRole('switch', { name: 'Temporary master download' });
  await expect(toggle).not.toBeChecked();
  await toggle.click();
  await expect(toggle).toBeChecked();
  const link = panel.getByTestId('master-url');
  await expect(link).toBeVisible({ timeout: 90_000 });
  await expect(panel.getByText(/Works without credentials until/)).toBeVisible();
  // A fresh context: no dashboard session, no API credentials.
  const anonymous = await playwright.request.newContext();
  const url = (await link.getAttribute('href'))!;
  const master = await anonymous.get(url);
  expect(master.status()).toBe(200);
  expect((await master.body()).subarray(4, 8).toString('latin1')).toBe('ftyp');

  await panel.getByRole('button', { name: 'Remove master access now' }).click();
  await expect(link).toBeHidden();
  await expect(toggle).not.toBeChecked();
  expect([403, 410]).toContain((await anonymous.get(url)).status());
  await anonymous.dispose();
});

test('"create clip" takes start and end from the preview player and makes a clip asset of that range', async ({ page }, testInfo) => {
  test.setTimeout(150_000);
  await openAsset(page, assetId);
  const video = page.getByTestId('preview-video');
  await expect(page.getByLabel('Quality').locator('option')).not.toHaveCount(1, { timeout: 60_000 });
  const seek = async (seconds: number) => {
    await video.evaluate(async (element: HTMLVideoElement, to: number) => {
      element.pause();
      await new Promise<void>((resolve) => {
        element.addEventListener('seeked', () => resolve(), { once: true });
        element.currentTime = to;
      });
    }, seconds);
  };
  const panel = page.getByRole('region', { name: 'Create a clip' });
  await seek(1);
  await panel.getByRole('button', { name: 'Start at player time' }).click();
  await expect(panel.getByLabel('Start (s)')).toHaveValue('1');
  await seek(3);
  await panel.getByRole('button', { name: 'End at player time' }).click();
  await expect(panel.getByLabel('End (s)')).toHaveValue('3');
  await panel.getByRole('button', { name: 'Create clip' }).click();
  const created = panel.getByRole('status').getByRole('link');
  await expect(created).toBeVisible();
  const clipId = (await created.textContent())!;
  await screenshot(page, testInfo, 'asset-create-clip');

  const clip = await api.waitForStatus(clipId, ['ready', 'errored'], 90_000);
  expect(clip.status).toBe('ready');
  expect(clip.source_asset_id).toBe(assetId);
  expect(clip.duration).toBeCloseTo(2, 1);
  await created.click();
  await expect(page.getByRole('region', { name: 'Inputs' })).toContainText('Clip from 1 s to 3 s');
  await expect(page.getByText('Clipped from')).toBeVisible();

  // The end before the start is caught before anything is sent.
  await page.goto(`${started().baseUrl}/assets/${assetId}`);
  await panel.getByLabel('Start (s)').fill('3');
  await panel.getByLabel('End (s)').fill('2');
  await expect(panel.getByRole('alert')).toContainText('The end must be after the start.');
  await expect(panel.getByRole('button', { name: 'Create clip' })).toBeDisabled();
});

test("a watermark is shown in the asset's inputs with its placement", async ({ page, media, fixtures }) => {
  test.setTimeout(120_000);
  const image = path.join(fixtures.dir, 'ui_watermark_64x32.png');
  if (!existsSync(image)) {
    execFileSync('ffmpeg', ['-hide_banner', '-v', 'error', '-nostdin', '-y', '-f', 'lavfi', '-i', 'color=c=red:s=64x32', '-frames:v', '1', image]);
  }
  const marked = await api.createAsset({
    inputs: [
      { url: media.fileUrl(fixtures.file('video720p')) },
      { url: media.fileUrl('ui_watermark_64x32.png'), overlay_settings: { vertical_align: 'bottom', horizontal_align: 'right', width: '10%', opacity: '80%' } },
    ],
    playback_policies: ['public'],
  });
  await openAsset(page, marked.id);
  const inputs = page.getByRole('region', { name: 'Inputs' });
  const watermark = inputs.getByRole('listitem').filter({ hasText: 'Watermark' });
  await expect(watermark).toContainText('ui_watermark_64x32.png');
  await expect(watermark).toContainText('bottom');
  await expect(watermark).toContainText('right');
  await expect(watermark).toContainText('10%');
  await expect(watermark).toContainText('80%');
  expect((await api.waitForStatus(marked.id, ['ready', 'errored'], 60_000)).status).toBe('ready');
});
