import type { DatabaseConfig } from './database-config';
import { applySqliteMigrations, type MigrationResult } from './migrate';
import { applyPostgresMigrations } from './migrate-postgres';

export type MigrationFolders = { sqlite: string; postgresql: string };

/** Brings the database DATABASE_URL names up to date with its provider's migrations folder. */
export const migrateDatabase = async (database: DatabaseConfig, folders: MigrationFolders): Promise<MigrationResult> =>
  database.provider === 'postgresql'
    ? applyPostgresMigrations({ url: database.url, schema: database.schema, migrationsDir: folders.postgresql })
    : applySqliteMigrations({ databaseFile: database.filePath, migrationsDir: folders.sqlite });
