// Derives prisma/postgres/schema.prisma from prisma/schema.prisma, the single source of truth for
// the models. Prisma fixes the provider per schema file (no env() or arrays in `provider`), so the
// PostgreSQL client needs its own file: the same models with provider "postgresql" and its own
// generated-client folder. Run by postinstall before `prisma generate`; lib/db/postgres-schema.test.ts
// fails when the committed copy is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const sqliteSchemaPath = path.join(root, 'prisma', 'schema.prisma');
export const postgresSchemaPath = path.join(root, 'prisma', 'postgres', 'schema.prisma');

const HEADER = `// GENERATED from prisma/schema.prisma by lib/setup/generate-postgres-schema.mjs — do not edit.
// Change the models there and run \`node lib/setup/generate-postgres-schema.mjs\`.

`;

const replaceOnce = (text, pattern, replacement, what) => {
  if (!pattern.test(text)) throw new Error(`prisma/schema.prisma: expected ${what} (${pattern}) not found`);
  return text.replace(pattern, replacement);
};

/** The PostgreSQL schema text for a SQLite schema text. */
export const derivePostgresSchema = (sqliteSchema) => {
  let schema = replaceOnce(
    sqliteSchema,
    /(datasource\s+db\s*\{[^}]*provider\s*=\s*)"sqlite"/,
    '$1"postgresql"',
    'the sqlite datasource provider',
  );
  // The schema moves one folder down, and the client goes to its own folder next to the SQLite one.
  schema = replaceOnce(
    schema,
    /(generator\s+client\s*\{[^}]*output\s*=\s*)"\.\.\/lib\/db\/generated"/,
    '$1"../../lib/db/generated-pg"',
    'the client output "../lib/db/generated"',
  );
  return HEADER + schema;
};

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  writeFileSync(postgresSchemaPath, derivePostgresSchema(readFileSync(sqliteSchemaPath, 'utf8')));
}
