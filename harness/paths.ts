import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const HARNESS_DIR = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(HARNESS_DIR, '..');
export const TSX_BIN = path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx');
// What `npm start` runs: the server bundle that `npm run build` writes (npm test builds first).
export const SERVER_BUNDLE = path.join(REPO_ROOT, '.next', 'keyframe', 'server.mjs');
export const CLI_ENTRY = path.join('lib', 'cli', 'keyframe.ts');
// The same CLI bundled by `npm run build`: starts on a third of the CPU the sources under tsx take.
export const CLI_BUNDLE = path.join(REPO_ROOT, '.next', 'keyframe', 'cli.mjs');
