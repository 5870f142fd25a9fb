import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { alias: { '@': fileURLToPath(new URL('.', import.meta.url)) } },
  test: {
    include: ['lib/**/*.test.ts', 'harness/**/*.test.ts'],
    environment: 'node',
    setupFiles: ['lib/server/install-test-runtime.ts'],
    testTimeout: 30_000,
    pool: 'forks',
    // A fresh process per test file spent about as long importing lib as running the tests (173
    // files: 3.0 → 1.75 min on 2 cores). The setup file restores the environment and builds a fresh
    // node runtime before each file instead.
    isolate: false,
    // Vitest's default in a run is one worker fewer than the cores: one on CI's 2 cores, which left a
    // core idle for most of the unit stage (1.1 cores busy on average over 400 s).
    maxWorkers: 2,
    // Vite puts its own BASE_URL ("/") into process.env, which collides with Keyframe's variable.
    env: { BASE_URL: '', LOG_LEVEL: 'silent' },
  },
});
