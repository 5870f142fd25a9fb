import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, test } from 'vitest';
import { listMigrations } from './migrate';
import { applyPostgresMigrations } from './migrate-postgres';
import { createTestPostgresDatabase, isTestPostgresReachable, type TestDatabase } from './test-databases';

const migrationsDir = path.resolve(__dirname, '../../prisma/postgres/migrations');
const postgresReachable = await isTestPostgresReachable();

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const freshDatabase = async (options?: { schema?: string }): Promise<TestDatabase & { url: string; schema: string }> => {
  const test = await createTestPostgresDatabase(options);
  cleanups.push(test.drop);
  if (test.database.provider !== 'postgresql') throw new Error('expected a PostgreSQL test database');
  return { ...test, url: test.database.url, schema: test.database.schema };
};

const query = async <Row extends pg.QueryResultRow>(url: string, sql: string): Promise<Row[]> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(sql)).rows;
  } finally {
    await client.end();
  }
};

// The real migrations plus one that inserts a row: applying it twice would leave two rows, so a
// double application cannot hide behind IF NOT EXISTS.
const migrationsWithACounter = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'keyframe-pg-migrations-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(migrationsDir, dir, { recursive: true });
  mkdirSync(path.join(dir, '29991231000000_counter'));
  writeFileSync(
    path.join(dir, '29991231000000_counter', 'migration.sql'),
    `CREATE TABLE "MigrationCounter" ("id" SERIAL PRIMARY KEY);\nSELECT pg_sleep(0.2);\nINSERT INTO "MigrationCounter" DEFAULT VALUES;\n`,
  );
  return dir;
};

describe.skipIf(!postgresReachable)('applyPostgresMigrations (PostgreSQL at 127.0.0.1:5432)', () => {
  test('creates every table, records each migration like prisma, and a second run is a no-op', async () => {
    const { url, schema } = await freshDatabase();
    const first = await applyPostgresMigrations({ url, schema, migrationsDir });
    expect(first.total).toBe(listMigrations(migrationsDir).length);
    expect(first.applied).toEqual(listMigrations(migrationsDir).map((migration) => migration.name));
    const second = await applyPostgresMigrations({ url, schema, migrationsDir });
    expect(second).toEqual({ applied: [], total: first.total });

    const tables = await query<{ table_name: string }>(
      url,
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`,
    );
    expect(tables.map((row) => row.table_name)).toEqual(
      expect.arrayContaining(['AccessToken', 'Asset', 'PlaybackId', 'Job', 'Upload', 'User', '_prisma_migrations']),
    );
    const rows = await query<{ migration_name: string; checksum: string; finished_at: Date; applied_steps_count: number }>(
      url,
      `SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations"`,
    );
    expect(rows).toHaveLength(first.total);
    for (const row of rows) {
      expect(row.checksum).toMatch(/^[0-9a-f]{64}$/);
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.applied_steps_count).toBe(1);
    }
  });

  test('several nodes starting at once apply each migration exactly once', async () => {
    const { url, schema } = await freshDatabase();
    const dir = migrationsWithACounter();
    const results = await Promise.all([1, 2, 3].map(() => applyPostgresMigrations({ url, schema, migrationsDir: dir })));

    const allApplied = results.flatMap((result) => result.applied);
    expect(allApplied.sort()).toEqual(listMigrations(dir).map((migration) => migration.name));
    // The node that got the lock first applied them all; the others found them recorded.
    expect(results.filter((result) => result.applied.length > 0)).toHaveLength(1);
    expect(await query(url, `SELECT * FROM "MigrationCounter"`)).toHaveLength(1);
    const recorded = await query<{ migration_name: string; count: string }>(
      url,
      `SELECT migration_name, count(*) FROM "_prisma_migrations" GROUP BY migration_name`,
    );
    expect(recorded.map((row) => row.count)).toEqual(recorded.map(() => '1'));
  });

  test('puts everything in the schema the URL names', async () => {
    const { url, schema } = await freshDatabase({ schema: 'video' });
    await applyPostgresMigrations({ url, schema, migrationsDir });
    const placement = await query<{ table_schema: string; count: string }>(
      url,
      `SELECT table_schema, count(*) FROM information_schema.tables WHERE table_name IN ('Asset', '_prisma_migrations') GROUP BY table_schema`,
    );
    expect(placement).toEqual([{ table_schema: 'video', count: '2' }]);
  });

  test('a failing migration leaves no trace and stops the run; a changed one is refused', async () => {
    const { url, schema } = await freshDatabase();
    const dir = migrationsWithACounter();
    mkdirSync(path.join(dir, '29991231000001_broken'));
    writeFileSync(
      path.join(dir, '29991231000001_broken', 'migration.sql'),
      `CREATE TABLE "HalfDone" ("id" TEXT);\nSELECT * FROM "NoSuchTable";\n`,
    );
    await expect(applyPostgresMigrations({ url, schema, migrationsDir: dir })).rejects.toThrow(
      /Migration 29991231000001_broken failed: relation "NoSuchTable" does not exist/,
    );
    expect(await query(url, `SELECT * FROM information_schema.tables WHERE table_name = 'HalfDone'`)).toEqual([]);
    expect(await query(url, `SELECT * FROM "_prisma_migrations" WHERE migration_name = '29991231000001_broken'`)).toEqual([]);

    writeFileSync(path.join(dir, '29991231000000_counter', 'migration.sql'), `SELECT 1;\n`);
    await expect(applyPostgresMigrations({ url, schema, migrationsDir: dir })).rejects.toThrow(
      /Migration 29991231000000_counter was modified after it was applied/,
    );
  });
});
