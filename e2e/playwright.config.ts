import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions } from '../harness/chromium';

// Paths are relative to this file (e2e/). Run with: npx playwright test -c e2e
// A separate pass (E2E_RUN_NAME=chaos, the cluster run's last) keeps its artifacts and report apart.
const runName = process.env.E2E_RUN_NAME ? `-${process.env.E2E_RUN_NAME}` : '';

export default defineConfig({
  testDir: '.',
  outputDir: `.artifacts/results${runName}`,
  globalSetup: './global-setup.ts',
  globalTeardown: './global-teardown.ts',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  workers: 2,
  fullyParallel: false,
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter: [
    ['list'],
    ['html', { outputFolder: `.artifacts/report${runName}`, open: 'never' }],
    // Per-test durations of the last run, to see where the suite's time goes.
    ['json', { outputFile: `.artifacts/${process.env.E2E_CLUSTER === '1' ? 'cluster-' : ''}timings${runName}.json` }],
  ],
  projects: [
    {
      // Talks HTTP only (raw fetch and @mux/mux-node); no browser is launched.
      name: 'api',
      // testDir rather than an 'api/**' glob: Playwright matches globs against the absolute path,
      // so a checkout under a folder named api/ (or playback/, ui/) would pull in every spec.
      testDir: './api',
      testMatch: '**/*.spec.ts',
    },
    {
      // Real playback: HLS playlists and segments encoded just in time, checked with ffmpeg/ffprobe,
      // plus hls.js in the system Chromium. Encoding is slow on small machines, hence the timeout.
      name: 'playback',
      testDir: './playback',
      testMatch: '**/*.spec.ts',
      timeout: 180_000,
      use: { launchOptions: chromiumLaunchOptions },
    },
    {
      // Live streaming: ffmpeg publishes over RTMP to a server of the spec's own, hls.js plays the
      // live playlists in the system Chromium. Broadcasts take real time, hence the timeout.
      name: 'live',
      testDir: './live',
      testMatch: '**/*.spec.ts',
      timeout: 240_000,
      use: { launchOptions: chromiumLaunchOptions },
    },
    {
      // The dashboard in the system Chromium: sign-in, assets, uploads, tokens, webhooks.
      name: 'ui',
      testDir: './ui',
      testMatch: '**/*.spec.ts',
      timeout: 120_000,
      use: { launchOptions: chromiumLaunchOptions, viewport: { width: 1280, height: 800 } },
    },
    {
      // The chaos soak, shortened (cluster run only): four nodes and their ffmpeg under load take
      // both cores, so harness/run-cluster-e2e.mjs runs it alone, after the rest.
      name: 'chaos',
      testDir: './chaos',
      testMatch: '**/*.spec.ts',
      timeout: 600_000,
    },
  ],
});
