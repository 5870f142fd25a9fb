import { createAdmin, screenshot, signIn } from '../support/dashboard';
import type { KeyframeServer } from '../support/keyframe-server';
import { disposeKeyframe, expect, startKeyframe, test } from '../support/test';
import { WebhookReceiver } from '../../harness/webhook-receiver';

// Access tokens (secret shown once, works against the API, revocation) and webhook endpoints
// (add one, see its deliveries) from the dashboard.

test.describe.configure({ mode: 'serial' });

let server: KeyframeServer | undefined;
let receiver: WebhookReceiver | undefined;
test.beforeAll(async () => {
  server = await startKeyframe({ label: 'ui-tokens' });
  await createAdmin(server);
});
test.afterAll(async () => {
  await receiver?.close();
  await disposeKeyframe(server);
});

const basicAuth = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

let apiAuthorization = '';

test('a token created in the dashboard works against the API until it is revoked', async ({ page, request }, testInfo) => {
  if (!server) throw new Error('server not started');
  await signIn(page, server);
  await page.getByRole('link', { name: 'Access tokens' }).click();
  await expect(page.getByText('No access tokens yet')).toBeVisible();

  await page.getByLabel('Token name').fill('ci-deploy');
  await page.getByLabel('Permissions').selectOption('read_write');
  await page.getByRole('button', { name: 'Create token' }).click();
  await expect(page.getByText('This is the only time the secret is shown')).toBeVisible();
  const id = (await page.getByTestId('new-token-id').textContent()) ?? '';
  const secret = (await page.getByTestId('new-token-secret').textContent()) ?? '';
  expect(secret.length).toBeGreaterThan(40);
  await screenshot(page, testInfo, 'access-token-created');

  apiAuthorization = basicAuth(id, secret);
  const allowed = await request.get(server.url('/video/v1/assets'), { headers: { authorization: apiAuthorization } });
  expect(allowed.status()).toBe(200);

  // Once dismissed, the secret is gone from the page for good.
  await page.getByRole('button', { name: 'I have stored the secret' }).click();
  await expect(page.getByText(secret)).toHaveCount(0);
  await page.reload();
  const row = page.getByRole('row').filter({ hasText: 'ci-deploy' });
  await expect(row).not.toContainText('never');
  await screenshot(page, testInfo, 'access-tokens');

  await row.getByRole('button', { name: 'Revoke ci-deploy' }).click();
  await page.getByRole('dialog', { name: 'Revoke access token?' }).getByRole('button', { name: 'Revoke token' }).click();
  await expect(row).toContainText('Revoked');
  const refused = await request.get(server.url('/video/v1/assets'), { headers: { authorization: apiAuthorization } });
  expect(refused.status()).toBe(401);
});

test('a webhook endpoint added in the dashboard lists its deliveries', async ({ page, request, media, fixtures }, testInfo) => {
  if (!server) throw new Error('server not started');
  receiver = await WebhookReceiver.start();
  await signIn(page, server);
  await page.getByRole('link', { name: 'Webhooks' }).click();
  await expect(page.getByText('No webhook endpoints yet')).toBeVisible();

  await page.getByLabel('Endpoint URL').fill('not a url');
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'url' })).toBeVisible();

  await page.getByLabel('Endpoint URL').fill(receiver.url);
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  const card = page.getByRole('listitem').filter({ hasText: receiver.url });
  await expect(card.getByText('No deliveries yet')).toBeVisible();
  await card.getByRole('button', { name: 'Reveal' }).click();
  await expect(card.getByTestId('webhook-secret')).not.toContainText('•');
  // The receiver refuses (400) anything not signed with the secret the dashboard revealed.
  receiver.secret = (await card.getByTestId('webhook-secret').textContent()) ?? '';
  expect(receiver.secret.length).toBeGreaterThan(20);

  const token = await server.createToken();
  const created = await request.post(server.url('/video/v1/assets'), {
    headers: { authorization: basicAuth(token.id, token.secret) },
    data: { inputs: [{ url: media.fileUrl(fixtures.file('videoSmall')) }], playback_policies: ['public'] },
  });
  expect(created.status()).toBe(201);

  const delivery = card.locator('tr[data-delivery-id]').filter({ hasText: 'video.asset.created' });
  await expect(delivery).toBeVisible({ timeout: 20_000 });
  await expect(delivery.locator('[data-status]')).toHaveAttribute('data-status', 'delivered', { timeout: 20_000 });
  await expect(delivery).toContainText(/200 · \d+ ms/);
  await screenshot(page, testInfo, 'webhooks');

  const before = receiver.received.length;
  await delivery.getByRole('button', { name: 'Resend video.asset.created delivery' }).click();
  await expect.poll(() => receiver?.received.length ?? 0, { timeout: 20_000 }).toBeGreaterThan(before);
  await expect(page.getByRole('status').filter({ hasText: 'Delivery queued to be sent again.' })).toBeVisible();
});

test('works from the keyboard and at phone width (390 px)', async ({ page }, testInfo) => {
  if (!server) throw new Error('server not started');
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, server);

  // Keyboard: reach "Create from URL", open the dialog with Enter, close it with Escape.
  const create = page.getByRole('button', { name: 'Create from URL' });
  for (let step = 0; step < 20 && !(await create.evaluate((element) => element === document.activeElement)); step += 1) {
    await page.keyboard.press('Tab');
  }
  await expect(create).toBeFocused();
  const outline = await create.evaluate((element) => getComputedStyle(element).outlineStyle);
  expect(outline, 'focus is visible').not.toBe('none');
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Create an asset from a URL' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByLabel('Video URL')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();

  // Nothing but the tables themselves scrolls sideways on a phone.
  for (const pathname of ['/assets', '/uploads', '/access-tokens', '/webhooks']) {
    await page.goto(server.url(pathname));
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${pathname} fits 390 px`).toBeLessThanOrEqual(0);
    await screenshot(page, testInfo, `mobile-${pathname.slice(1)}`);
  }
  // The asset created by the webhook test above.
  await page.goto(server.url('/assets'));
  await page.locator('tr[data-asset-id] a').first().click();
  await expect(page.getByRole('heading', { name: 'Playback IDs' })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
  await screenshot(page, testInfo, 'mobile-asset-detail');
});
