import { migrateDatabase } from '../db/migrate-database';
import type { MigrationResult } from '../db/migrate';
import type { Env } from '../env';
import { postgresMigrationsDir, sqliteMigrationsDir } from './project-root';

// Brings the database schema up to date; shared by the server and the CLI so either can start first.
export const prepareDatabase = (env: Env): Promise<MigrationResult> =>
  migrateDatabase(env.database, { sqlite: sqliteMigrationsDir, postgresql: postgresMigrationsDir });
