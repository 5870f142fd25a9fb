import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { listMigrations, type MigrationResult } from './migrate';

// Applies prisma/postgres/migrations the way lib/db/migrate.ts applies the SQLite ones, and for the
// same reason (Prisma's native schema engine cannot be downloaded here). Several nodes may start at
// once against one database: each takes Prisma's own advisory lock first, so the others wait and
// then find every migration recorded, and a machine running `prisma migrate deploy` at the same
// moment waits too. Each migration runs in its own transaction (PostgreSQL's DDL is
// transactional): a failure leaves neither half a schema nor a record of it.

// The key `prisma migrate deploy` locks (schema-engine's postgres flavour).
export const PRISMA_ADVISORY_LOCK_KEY = 72707369;

// Prisma's PostgreSQL shape of the table, so its CLI reads the same state.
const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

const quoteIdentifier = (name: string) => `"${name.replaceAll('"', '""')}"`;

export const applyPostgresMigrations = async ({
  url,
  schema,
  migrationsDir,
}: {
  url: string;
  schema: string;
  migrationsDir: string;
}): Promise<MigrationResult> => {
  const migrations = listMigrations(migrationsDir);
  const client = new pg.Client({ connectionString: url });
  // A connection lost mid-run already rejects the query in flight; without a listener the same
  // error would also be thrown as an unhandled 'error' event and end the process.
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query(`SELECT pg_advisory_lock(${PRISMA_ADVISORY_LOCK_KEY})`);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(schema)}`);
    await client.query(`SET search_path TO ${quoteIdentifier(schema)}`);
    await client.query(CREATE_MIGRATIONS_TABLE);
    const applied: string[] = [];
    for (const migration of migrations) {
      const { rows } = await client.query<{ checksum: string; finished_at: Date | null }>(
        `SELECT checksum, finished_at FROM "_prisma_migrations" WHERE migration_name = $1 AND rolled_back_at IS NULL`,
        [migration.name],
      );
      const failed = rows.find((row) => row.finished_at === null);
      if (failed) {
        // Only Prisma's CLI records a failed run (this runner rolls back instead); it refuses to go on
        // until someone has looked at the database, and so does this.
        throw new Error(
          `Migration ${migration.name} is recorded as failed in _prisma_migrations; fix the database and mark it rolled back (prisma migrate resolve) before starting again`,
        );
      }
      const done = rows[0];
      if (done) {
        if (done.checksum !== migration.checksum) throw new Error(`Migration ${migration.name} was modified after it was applied`);
        continue;
      }
      await client.query('BEGIN');
      try {
        const startedAt = new Date();
        await client.query(migration.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count)
           VALUES ($1, $2, now(), $3, $4, 1)`,
          [randomUUID(), migration.checksum, migration.name, startedAt],
        );
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`Migration ${migration.name} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
      applied.push(migration.name);
    }
    return { applied, total: migrations.length };
  } finally {
    // Ending the session releases the advisory lock too; unlocking first lets the next node in
    // without waiting for the connection teardown.
    await client.query(`SELECT pg_advisory_unlock(${PRISMA_ADVISORY_LOCK_KEY})`).catch(() => undefined);
    await client.end();
  }
};
