import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { getEnv } from '../env';
import { processSingleton } from '../utils/process-singleton';
import { PrismaClient } from './generated/client';

export type Db = PrismaClient;

// One client per process. WAL mode (set by the migration runner, persistent in the file) lets the
// server and the CLI use the same database at once; the busy timeout makes a writer wait for the
// other instead of failing with SQLITE_BUSY.
export const getDb = (): Db =>
  processSingleton('prisma', () => {
    const { database } = getEnv();
    const adapter = new PrismaBetterSqlite3({ url: database.filePath, timeout: 15_000 });
    return new PrismaClient({ adapter });
  });
