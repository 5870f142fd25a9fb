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
    // Vite puts its own BASE_URL ("/") into process.env, which collides with Keyframe's variable.
    env: { BASE_URL: '', LOG_LEVEL: 'silent' },
  },
});
