import type { LaunchOptions } from '@playwright/test';

// Launch options for the system Chromium (the machine's flags), shared by the e2e UI and playback
// projects (e2e/playwright.config.ts) and the benchmark's browser phases.
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
