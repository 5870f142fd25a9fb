import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import type { Database } from 'better-sqlite3';

// Prisma's SQLite adapter opens every transaction with a deferred BEGIN. A transaction that reads
// before it writes then holds a snapshot, and when another process (the CLI beside the server)
// commits in between, its first write fails at once with SQLITE_BUSY_SNAPSHOT: the busy timeout
// never runs, because waiting could not make the snapshot current again. BEGIN IMMEDIATE takes the
// write lock at the start, where the busy timeout does wait for the other writer. Within one
// process the adapter already runs one transaction at a time, so nothing there waits longer.
// The adapter offers no option for this; its connection's `client` is patched where BEGIN is
// prepared (lib/db/client.test.ts fails if an upgrade of the adapter changes that).
export class ImmediateTransactionsSqlite extends PrismaBetterSqlite3 {
  override async connect(): ReturnType<PrismaBetterSqlite3['connect']> {
    const adapter = await super.connect();
    const connection = (adapter as unknown as { client?: Database }).client;
    if (!connection || typeof connection.prepare !== 'function') {
      throw new Error('@prisma/adapter-better-sqlite3 no longer exposes its connection as `client`; see lib/db/sqlite-adapter.ts');
    }
    const prepare = connection.prepare.bind(connection);
    connection.prepare = ((source: string) => prepare(source === 'BEGIN' ? 'BEGIN IMMEDIATE' : source)) as Database['prepare'];
    return adapter;
  }
}
