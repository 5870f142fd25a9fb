import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

// Applies the committed Prisma migrations without Prisma's native schema engine (which cannot be
// downloaded on machines that only reach the npm registry). It records each migration in
// `_prisma_migrations` exactly as `prisma migrate deploy` does, so a machine that has the engine
// sees the same state.

const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    TEXT PRIMARY KEY NOT NULL,
    "checksum"              TEXT NOT NULL,
    "finished_at"           DATETIME,
    "migration_name"        TEXT NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        DATETIME,
    "started_at"            DATETIME NOT NULL DEFAULT current_timestamp,
    "applied_steps_count"   INTEGER UNSIGNED NOT NULL DEFAULT 0
)`;

export type MigrationResult = { applied: string[]; total: number };

export const listMigrations = (migrationsDir: string): { name: string; sql: string; checksum: string }[] =>
  readdirSync(migrationsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(migrationsDir, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(migrationsDir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });

export const applySqliteMigrations = ({
  databaseFile,
  migrationsDir,
}: {
  databaseFile: string;
  migrationsDir: string;
}): MigrationResult => {
  mkdirSync(path.dirname(databaseFile), { recursive: true });
  const db = new Database(databaseFile, { timeout: 15_000 });
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.exec(CREATE_MIGRATIONS_TABLE);
    const migrations = listMigrations(migrationsDir);
    const applied: string[] = [];
    for (const migration of migrations) {
      // IMMEDIATE takes the write lock up front, so a server and a CLI starting together apply each
      // migration once.
      const applyOne = db.transaction(() => {
        const done = db
          .prepare(
            `SELECT checksum FROM "_prisma_migrations" WHERE migration_name = ? AND finished_at IS NOT NULL AND rolled_back_at IS NULL`,
          )
          .get(migration.name) as { checksum: string } | undefined;
        if (done) {
          if (done.checksum !== migration.checksum) {
            throw new Error(`Migration ${migration.name} was modified after it was applied`);
          }
          return false;
        }
        db.exec(migration.sql);
        db.prepare(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count)
           VALUES (?, ?, ?, ?, ?, 1)`,
        ).run(randomUUID(), migration.checksum, Date.now(), migration.name, Date.now());
        return true;
      });
      if (applyOne.immediate()) applied.push(migration.name);
    }
    return { applied, total: migrations.length };
  } finally {
    db.close();
  }
};
