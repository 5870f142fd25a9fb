import { ADMIN, createAdmin, screenshot, signIn } from '../support/dashboard';
import type { KeyframeServer } from '../support/keyframe-server';
import { disposeKeyframe, expect, startKeyframe, test } from '../support/test';

// Sign-in for the dashboard: the first-run admin screen (and only then), sign-in/sign-out, and
// that neither pages nor dashboard JSON routes answer without a session, while the public API,
// playback and health routes stay outside dashboard auth.

test.describe.configure({ mode: 'serial' });

let server: KeyframeServer | undefined;
test.afterAll(async () => disposeKeyframe(server));

test('a fresh install asks for the admin account, then signs in with it', async ({ page }, testInfo) => {
  server = await startKeyframe({ label: 'ui-auth' });
  await page.goto(server.url('/'));
  await expect(page).toHaveURL(/\/setup$/);
  await expect(page.getByRole('heading', { name: 'Create the admin account' })).toBeVisible();
  await screenshot(page, testInfo, 'setup');

  await page.getByLabel('Email').fill(ADMIN.email);
  await page.getByLabel('Password', { exact: true }).fill('short');
  await page.getByLabel('Confirm password').fill('short');
  await page.getByLabel('Password', { exact: true }).evaluate((input: HTMLInputElement) => input.removeAttribute('minlength'));
  await page.getByLabel('Confirm password').evaluate((input: HTMLInputElement) => input.removeAttribute('minlength'));
  await page.getByRole('button', { name: 'Create admin account' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'password: must be at least 8 characters' })).toBeVisible();

  await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
  await page.getByLabel('Confirm password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Create admin account' }).click();
  await expect(page).toHaveURL(/\/assets$/);
  await expect(page.getByRole('heading', { name: 'Assets' })).toBeVisible();
  await expect(page.getByText('No assets yet')).toBeVisible();
  await screenshot(page, testInfo, 'assets-empty');

  // Only on a fresh install: now the setup screen sends visitors to sign-in.
  await page.context().clearCookies();
  await page.goto(server.url('/setup'));
  await expect(page).toHaveURL(/\/sign-in$/);
});

test('sign-out ends the session; pages redirect and JSON routes answer 401 without one', async ({ page, request }, testInfo) => {
  if (!server) throw new Error('server not started');
  await signIn(page, server);
  const withSession = await page.request.get(server.url('/api/dashboard/assets'));
  expect(withSession.status()).toBe(200);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  await screenshot(page, testInfo, 'sign-in');

  for (const pathname of ['/assets', '/uploads', '/access-tokens', '/webhooks', '/assets/abcdefghijklmnopqrstuvwxyz']) {
    await page.goto(server.url(pathname));
    await expect(page, pathname).toHaveURL(/\/sign-in$/);
  }
  const anonymous = await request.get(server.url('/api/dashboard/assets'));
  expect(anonymous.status()).toBe(401);
  expect(await anonymous.json()).toEqual({ error: { type: 'unauthorized', messages: ['Sign in to use the dashboard'] } });
  expect((await request.post(server.url('/api/dashboard/access-tokens'), { data: { name: 'x', permission: 'read_write' } })).status()).toBe(401);

  // The public surface keeps its own rules.
  expect((await request.get(server.url('/api/health'))).status()).toBe(200);
  expect((await request.get(server.url('/video/v1/assets'))).status()).toBe(401);

  // A wrong password is refused with a message, the right one signs in.
  await page.goto(server.url('/sign-in'));
  await page.getByLabel('Email').fill(ADMIN.email);
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Wrong email or password.' })).toBeVisible();
  await signIn(page, server);
});

test('an admin created with the CLI skips the setup screen', async ({ page }) => {
  const other = await startKeyframe({ label: 'ui-auth-cli' });
  try {
    await createAdmin(other, { email: 'ops@example.com', password: 'from the command line' });
    await page.goto(other.url('/assets'));
    await expect(page).toHaveURL(/\/sign-in$/);
    await page.goto(other.url('/setup'));
    await expect(page).toHaveURL(/\/sign-in$/);
    await signIn(page, other, { email: 'OPS@example.com', password: 'from the command line' });
  } finally {
    await disposeKeyframe(other);
  }
});
