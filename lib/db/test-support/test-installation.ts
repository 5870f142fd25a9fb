import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getEnv } from '../../env';
import { getDb } from '../client';
import { migrateDatabase } from '../migrate-database';
import { createTestSqliteDatabase } from '../test-databases';

// A test file's own installation for the services it calls, which reach DATA_DIR and the database
// through getEnv() and getDb(): a temp DATA_DIR and a migrated SQLite database, named in the
// environment before the first getEnv() of the file (the unit-test setup restores the environment
// before the next file).

export type TestInstallation = { dataDir: string; tearDown: () => Promise<void> };

const ROOT = path.resolve(import.meta.dirname, '../../..');
const MIGRATIONS = { sqlite: path.join(ROOT, 'prisma', 'migrations'), postgresql: path.join(ROOT, 'prisma', 'postgres', 'migrations') };

export const setUpTestInstallation = async (label: string): Promise<TestInstallation> => {
  const database = await createTestSqliteDatabase();
  if (database.database.provider !== 'sqlite') throw new Error('expected a SQLite test database');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `keyframe-${label}-`));
  process.env.DATA_DIR = dataDir;
  process.env.DATABASE_URL = `file:${database.database.filePath}`;
  await migrateDatabase(getEnv().database, MIGRATIONS);
  return {
    dataDir,
    tearDown: async () => {
      await getDb().$disconnect();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
};
