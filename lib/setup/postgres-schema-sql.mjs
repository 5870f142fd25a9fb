// Prints PostgreSQL DDL for prisma/postgres/schema.prisma, written by Prisma's own schema engine:
//
//   npm run --silent db:postgres-sql                          # the whole schema, from an empty database
//   npm run --silent db:postgres-sql -- --from OLD.prisma     # only the changes since OLD.prisma
// (node --experimental-wasm-modules lib/setup/postgres-schema-sql.mjs …: the engine imports its .wasm as a module)
//
// After a model change, `git show HEAD:prisma/postgres/schema.prisma > /tmp/old.prisma` and the
// second form give the next PostgreSQL migration (prisma/postgres/migrations/<timestamp>_<name>/
// migration.sql). Prisma's CLI cannot do this here: `migrate diff` needs the native schema engine,
// which is downloaded from a host this machine cannot reach. The Wasm build of the same engine
// (@prisma/schema-engine-wasm, a dev dependency) can, but only with a live PostgreSQL connection,
// so a throwaway database is created and dropped (POSTGRES_ADMIN_URL, default
// postgres://postgres@127.0.0.1:5432/postgres, must be allowed to create databases). It cannot
// diff against a live database (it fails to read pg_catalog's "char" columns through the pg
// adapter), which is why lib/db/postgres-migrations.test.ts compares catalogs itself.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { PrismaPg } from '@prisma/adapter-pg';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import { SchemaEngine } from '@prisma/schema-engine-wasm';
import pg from 'pg';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const schemaPath = path.join(root, 'prisma', 'postgres', 'schema.prisma');

const datamodel = (file) => ({ tag: 'schemaDatamodel', files: [{ path: file, content: readFileSync(file, 'utf8') }] });

export const postgresSchemaSql = async ({ adminUrl, fromSchemaPath }) => {
  const scratchName = `keyframe_schema_sql_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${scratchName}"`);
  const scratchUrl = new URL(adminUrl);
  scratchUrl.pathname = `/${scratchName}`;
  let engine;
  try {
    const adapter = bindMigrationAwareSqlAdapterFactory(new PrismaPg({ connectionString: scratchUrl.toString() }));
    engine = await SchemaEngine.new({ datamodels: undefined }, () => undefined, adapter);
    const result = await engine.diff({
      from: fromSchemaPath ? datamodel(fromSchemaPath) : { tag: 'empty' },
      to: datamodel(schemaPath),
      script: true,
      exitCode: null,
      filters: { externalTables: [], externalEnums: [] },
    });
    return (result.stdout ?? '').replace(/^-- This is an empty migration\.\s*$/m, '').trim();
  } finally {
    engine?.free();
    await admin.query(`DROP DATABASE IF EXISTS "${scratchName}" WITH (FORCE)`);
    await admin.end();
  }
};

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const { values } = parseArgs({ options: { from: { type: 'string' } } });
  const sql = await postgresSchemaSql({
    adminUrl: process.env.POSTGRES_ADMIN_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
    fromSchemaPath: values.from ? path.resolve(values.from) : undefined,
  });
  if (sql) process.stdout.write(`${sql}\n`);
}
