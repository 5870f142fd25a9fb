import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { DatabaseConfig } from './database-config';
import { createDb, type Db } from './client';
import { migrateDatabase } from './migrate-database';

// Throwaway databases for tests: a SQLite file in a temp folder, or a PostgreSQL database of its
// own (keyframe_test_<random>) on the server CI provides at 127.0.0.1:5432 (trust auth, user
// postgres). On a machine without that server the PostgreSQL tests skip, saying why.

export const TEST_POSTGRES_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export type TestDatabase = { database: DatabaseConfig; drop: () => Promise<void> };

/** Whether PostgreSQL answers at 127.0.0.1:5432; logs the reason the PostgreSQL tests skip if not. */
export const isTestPostgresReachable = async (): Promise<boolean> => {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_ADMIN_URL, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch (error) {
    console.warn(
      `PostgreSQL does not answer at ${new URL(TEST_POSTGRES_ADMIN_URL).host} (${error instanceof Error ? error.message : String(error)}); skipping the PostgreSQL tests`,
    );
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
};

export const createTestSqliteDatabase = async (): Promise<TestDatabase> => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'keyframe-db-test-'));
  const filePath = path.join(dir, 'test.db');
  return {
    database: { provider: 'sqlite', filePath, label: `sqlite:${filePath}` },
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
};

const withAdmin = async <T>(run: (admin: pg.Client) => Promise<T>): Promise<T> => {
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_ADMIN_URL });
  await admin.connect();
  try {
    return await run(admin);
  } finally {
    await admin.end();
  }
};

/** A new, empty PostgreSQL database; `drop()` removes it (disconnecting whoever still uses it). */
export const createTestPostgresDatabase = async ({ schema = 'public' }: { schema?: string } = {}): Promise<TestDatabase> => {
  const name = `keyframe_test_${randomBytes(6).toString('hex')}`;
  await withAdmin((admin) => admin.query(`CREATE DATABASE "${name}"`));
  const url = new URL(TEST_POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    database: { provider: 'postgresql', url: url.toString(), schema, label: url.toString() },
    drop: () => withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
};

const MIGRATION_FOLDERS = {
  sqlite: path.resolve(import.meta.dirname, '../../prisma/migrations'),
  postgresql: path.resolve(import.meta.dirname, '../../prisma/postgres/migrations'),
};

/**
 * `count` clients on one freshly made and migrated test database, as that many nodes (or the
 * server and the CLI) would have; what undoes them (disconnects, then the drop) goes to `cleanups`.
 */
export const migratedClients = async (make: () => Promise<TestDatabase>, count: number, cleanups: (() => Promise<void>)[]): Promise<Db[]> => {
  const test = await make();
  cleanups.push(test.drop);
  await migrateDatabase(test.database, MIGRATION_FOLDERS);
  const clients = Array.from({ length: count }, () => createDb(test.database));
  for (const db of clients) cleanups.push(() => db.$disconnect());
  return clients;
};
