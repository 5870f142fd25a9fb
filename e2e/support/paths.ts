import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from '../../harness/paths';

export const E2E_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// Real footage shared by the team; absent on a fresh clone, so every use of it must be optional.
// (Point E2E_SHARED_MEDIA_DIR at an empty directory to check the suite passes without it.)
export const SHARED_MEDIA_DIR = process.env.E2E_SHARED_MEDIA_DIR ?? path.resolve(REPO_ROOT, '..', 'shared', 'media');

export const sharedMediaPath = (name: string): string | undefined => {
  const file = path.join(SHARED_MEDIA_DIR, name);
  return existsSync(file) ? file : undefined;
};
