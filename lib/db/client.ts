import { PrismaPg } from '@prisma/adapter-pg';
import type { DatabaseConfig } from './database-config';
import { nodeRuntime } from '../runtime/node-runtime';
import { PrismaClient } from './generated/client';
import { PrismaClient as PostgresPrismaClient } from './generated-pg/client';
import { ImmediateTransactionsSqlite } from './sqlite-adapter';

// Callers are typed by the SQLite client. The PostgreSQL client is generated from the same models
// (prisma/postgres/schema.prisma is derived from prisma/schema.prisma), but TypeScript cannot
// relate the two client classes (their transaction options and aggregate types differ per
// provider), so it is asserted to be a Db in one place, below, after the compile-time check in
// same-models.ts that both expose the same models with the same row types.
export type Db = PrismaClient;

export type DatabaseProvider = DatabaseConfig['provider'];

declare module '../runtime/node-runtime' {
  interface NodeRuntime {
    /** The client for the database DATABASE_URL names. */
    db: Db;
  }
}

// Which dialect a client speaks, for the few queries lib/db writes per provider. Kept on the
// client itself: the server bundle makes getDb()'s client and Next.js's bundle (its own copy of
// this module) asks about it.
const PROVIDER = Symbol.for('keyframe.database-provider');
type WithProvider = { [PROVIDER]?: DatabaseProvider };

export const databaseProviderOf = (db: Db): DatabaseProvider => {
  const provider = (db as WithProvider)[PROVIDER];
  if (!provider) throw new Error('This Prisma client was not made by createDb(); its SQL dialect is unknown');
  return provider;
};

export const createDb = (database: DatabaseConfig): Db => {
  const db = createClient(database);
  Object.defineProperty(db, PROVIDER, { value: database.provider });
  return db;
};

const createClient = (database: DatabaseConfig): Db => {
  if (database.provider === 'postgresql') {
    // The adapter's `schema` qualifies model queries; raw SQL resolves names through search_path,
    // so both are set.
    const adapter = new PrismaPg(
      { connectionString: database.url, options: `-c search_path="${database.schema}"` },
      { schema: database.schema },
    );
    return new PostgresPrismaClient({ adapter }) as unknown as Db;
  }
  // WAL mode (set by the migration runner, persistent in the file) lets the server and the CLI use
  // the same database at once; the busy timeout makes a writer wait for the other instead of
  // failing with SQLITE_BUSY (for transactions too: see sqlite-adapter.ts).
  const adapter = new ImmediateTransactionsSqlite({ url: database.filePath, timeout: 15_000 });
  return new PrismaClient({ adapter });
};

export const getDb = (): Db => nodeRuntime().db;
