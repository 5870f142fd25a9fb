import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const E2E_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const REPO_ROOT = path.resolve(E2E_DIR, '..');
export const TSX_BIN = path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx');
// What `npm start` runs: the server bundle that `npm run build` writes (npm test builds first).
export const SERVER_BUNDLE = path.join(REPO_ROOT, '.next', 'keyframe', 'server.mjs');
export const CLI_ENTRY = path.join('lib', 'cli', 'keyframe.ts');

// Real footage shared by the team; absent on a fresh clone, so every use of it must be optional.
// (Point E2E_SHARED_MEDIA_DIR at an empty directory to check the suite passes without it.)
export const SHARED_MEDIA_DIR = process.env.E2E_SHARED_MEDIA_DIR ?? path.resolve(REPO_ROOT, '..', 'shared', 'media');

export const sharedMediaPath = (name: string): string | undefined => {
  const file = path.join(SHARED_MEDIA_DIR, name);
  return existsSync(file) ? file : undefined;
};
