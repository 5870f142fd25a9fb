import { Api } from '../support/api';
import { createAdmin, screenshot, signIn } from '../support/dashboard';
import type { KeyframeServer } from '../support/keyframe-server';
import { disposeKeyframe, expect, startKeyframe, test } from '../support/test';

// The asset page's quality report: measured when asked for, followed without a reload, one row per
// rendition with the bitrate spent and SSIM/PSNR.

let server: KeyframeServer | undefined;
let assetId = '';
test.beforeAll(async ({ media, fixtures }) => {
  test.setTimeout(120_000);
  server = await startKeyframe({ label: 'ui-quality' });
  await createAdmin(server);
  const api = new Api(server.baseUrl, await server.createToken());
  assetId = (await api.createAsset({ inputs: [{ url: media.fileUrl(fixtures.file('video720p')) }], playback_policies: ['public'], meta: { title: 'Quality' } })).id;
  await api.waitForStatus(assetId, ['ready']);
});
test.afterAll(async () => disposeKeyframe(server));

test('"Measure quality" fills the table with every rendition, then offers to measure again', async ({ page }, testInfo) => {
  test.setTimeout(150_000);
  await signIn(page, server!);
  await page.goto(`${server!.baseUrl}/assets/${assetId}`);
  const panel = page.getByRole('region', { name: 'Quality' });
  await panel.getByRole('button', { name: 'Measure quality' }).click();
  await expect(panel.getByRole('status')).toHaveText('Measuring…');
  const table = panel.getByRole('table', { name: 'Quality per rendition' });
  await expect(table).toBeVisible({ timeout: 120_000 });
  const rows = table.locator('tbody tr');
  await expect(rows).toHaveCount(4);
  await expect(rows.first()).toHaveAttribute('data-rung', '270p');
  await expect(rows.first()).toContainText(/0\.9\d{3}/);
  await expect(rows.first()).toContainText(/\d+\.\d dB/);
  await expect(panel.getByRole('button', { name: 'Measure again' })).toBeEnabled();
  await screenshot(page, testInfo, 'asset-quality-report');
});
