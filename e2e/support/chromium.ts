import type { LaunchOptions } from '@playwright/test';

// Launch options for the system Chromium, shared by the (future) UI projects. API specs do not
// start a browser.
export const chromiumLaunchOptions: LaunchOptions = {
  executablePath: '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
};
