import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterEach, describe, expect, test } from 'vitest';
import { applyPostgresMigrations } from './migrate-postgres';
import { createTestPostgresDatabase, isTestPostgresReachable, TEST_POSTGRES_ADMIN_URL } from './test-databases';

// The committed PostgreSQL migrations must build exactly the database Prisma's schema engine would
// build from prisma/postgres/schema.prisma (itself derived from the SQLite schema): after a model
// change without a PostgreSQL migration, this fails and prints the SQL of the missing migration.

const root = path.resolve(__dirname, '../..');
const migrationsDir = path.join(root, 'prisma', 'postgres', 'migrations');
const schemaSqlScript = path.join(root, 'lib', 'setup', 'postgres-schema-sql.mjs');
const postgresReachable = await isTestPostgresReachable();

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const withClient = async <T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
};

// Everything about the tables that a migration decides, in a stable order.
const describeSchema = (url: string) =>
  withClient(url, async (client) => {
    const columns = await client.query(`
      SELECT table_name, column_name, data_type, is_nullable, column_default, datetime_precision
      FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'
      ORDER BY table_name, column_name`);
    const indexes = await client.query(`
      SELECT tablename, indexname, indexdef FROM pg_indexes
      WHERE schemaname = 'public' AND tablename <> '_prisma_migrations'
      ORDER BY tablename, indexname`);
    const constraints = await client.query(`
      SELECT rel.relname AS table_name, con.conname, pg_get_constraintdef(con.oid) AS definition
      FROM pg_constraint con JOIN pg_class rel ON rel.oid = con.conrelid JOIN pg_namespace ns ON ns.oid = rel.relnamespace
      WHERE ns.nspname = 'public' AND rel.relname <> '_prisma_migrations'
      ORDER BY rel.relname, con.conname`);
    return { columns: columns.rows, indexes: indexes.rows, constraints: constraints.rows };
  });

const freshDatabaseUrl = async () => {
  const test = await createTestPostgresDatabase();
  cleanups.push(test.drop);
  if (test.database.provider !== 'postgresql') throw new Error('expected a PostgreSQL test database');
  return test.database.url;
};

describe.skipIf(!postgresReachable)('prisma/postgres/migrations (PostgreSQL at 127.0.0.1:5432)', () => {
  test('build the schema prisma/postgres/schema.prisma describes', async () => {
    const migrated = await freshDatabaseUrl();
    await applyPostgresMigrations({ url: migrated, schema: 'public', migrationsDir });

    const fromSchema = await freshDatabaseUrl();
    const { stdout: schemaSql } = await promisify(execFile)(
      process.execPath,
      ['--experimental-wasm-modules', '--no-warnings', schemaSqlScript],
      { cwd: root, env: { ...process.env, POSTGRES_ADMIN_URL: TEST_POSTGRES_ADMIN_URL }, timeout: 60_000 },
    );
    expect(schemaSql).toMatch(/CREATE TABLE "Asset"/);
    await withClient(fromSchema, (client) => client.query(schemaSql));

    const [expected, actual] = await Promise.all([describeSchema(fromSchema), describeSchema(migrated)]);
    expect(expected.columns.length).toBeGreaterThan(50);
    expect(
      actual,
      'prisma/postgres/migrations is behind the schema: add a migration (npm run --silent db:postgres-sql -- --from <previous prisma/postgres/schema.prisma>)',
    ).toEqual(expected);
  });
});
