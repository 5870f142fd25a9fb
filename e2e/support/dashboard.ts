import path from 'node:path';
import { expect, type Page, type TestInfo } from '@playwright/test';
import type { KeyframeServer } from './keyframe-server';
import { E2E_DIR } from './paths';

// Helpers for the dashboard (UI) specs: an admin user made headlessly with the CLI, sign-in through
// the real form, and screenshots kept as artifacts.

export const ADMIN = { email: 'admin@example.com', password: 'correct horse battery' };

export const SCREENSHOT_DIR = path.join(E2E_DIR, '.artifacts', 'screenshots');

export const createAdmin = async (server: KeyframeServer, user = ADMIN): Promise<void> => {
  const created = (await server.cli(['users', 'create', '--email', user.email, '--password', user.password])) as { email?: string };
  if (created.email !== user.email) throw new Error(`users create printed ${JSON.stringify(created)}`);
};

export const signIn = async (page: Page, server: KeyframeServer, user = ADMIN): Promise<void> => {
  await page.goto(server.url('/sign-in'));
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/assets$/);
};

/** Saves a full-page screenshot under e2e/.artifacts/screenshots and attaches it to the report. */
export const screenshot = async (page: Page, testInfo: TestInfo, name: string): Promise<void> => {
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  await testInfo.attach(name, { path: file, contentType: 'image/png' });
};
