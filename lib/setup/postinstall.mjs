// Generates the Prisma client after `npm install`.
// Prisma's CLI downloads a native schema engine on first use, which fails on machines that can only
// reach the npm registry; `generate` does not need that engine, so we point the variable at any
// existing file to keep the CLI from fetching it.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const prismaCli = path.join(root, 'node_modules', 'prisma', 'build', 'index.js');
const schema = path.join(root, 'prisma', 'schema.prisma');

if (!existsSync(prismaCli) || !existsSync(schema)) {
  console.log('[keyframe] prisma CLI or schema not present yet; skipping client generation');
  process.exit(0);
}

const result = spawnSync(process.execPath, [prismaCli, 'generate', '--schema', schema], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' },
});
process.exit(result.status ?? 1);
