// Generates the Prisma clients after `npm install`: the SQLite one from prisma/schema.prisma (the
// source of truth for the models) and the PostgreSQL one from prisma/postgres/schema.prisma, which
// is derived from it first so the two can never disagree.
// Prisma's CLI downloads a native schema engine on first use, which fails on machines that can only
// reach the npm registry; `generate` does not need that engine, so we point the variable at any
// existing file to keep the CLI from fetching it.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { derivePostgresSchema, postgresSchemaPath, sqliteSchemaPath } from './generate-postgres-schema.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const prismaCli = path.join(root, 'node_modules', 'prisma', 'build', 'index.js');

if (!existsSync(prismaCli) || !existsSync(sqliteSchemaPath)) {
  console.log('[keyframe] prisma CLI or schema not present yet; skipping client generation');
  process.exit(0);
}

const postgresSchema = derivePostgresSchema(readFileSync(sqliteSchemaPath, 'utf8'));
if (!existsSync(postgresSchemaPath) || readFileSync(postgresSchemaPath, 'utf8') !== postgresSchema) {
  writeFileSync(postgresSchemaPath, postgresSchema);
}

for (const schema of [sqliteSchemaPath, postgresSchemaPath]) {
  const result = spawnSync(process.execPath, [prismaCli, 'generate', '--schema', schema], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' },
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
