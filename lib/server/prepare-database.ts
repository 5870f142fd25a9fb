import { applySqliteMigrations, type MigrationResult } from '../db/migrate';
import type { Env } from '../env';
import { sqliteMigrationsDir } from './project-root';

// Brings the database schema up to date; shared by the server and the CLI so either can start first.
export const prepareDatabase = (env: Env): MigrationResult =>
  applySqliteMigrations({ databaseFile: env.database.filePath, migrationsDir: sqliteMigrationsDir });
