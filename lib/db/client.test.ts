import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, test } from 'vitest';
import { databaseProviderOf, type Db } from './client';
import { createTestPostgresDatabase, createTestSqliteDatabase, isTestPostgresReachable, migratedClients, type TestDatabase } from './test-databases';

const postgresReachable = await isTestPostgresReachable();

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const migratedDb = async (make: () => Promise<TestDatabase>): Promise<Db> => (await migratedClients(make, 1, cleanups))[0]!;

describe('createDb', () => {
  test('a file: database gets the SQLite client, which reads and writes the migrated file', async () => {
    const db = await migratedDb(createTestSqliteDatabase);
    expect(databaseProviderOf(db)).toBe('sqlite');
    await db.accessToken.create({ data: { id: 'tok1', name: 'n', secretHash: 'h' } });
    expect(await db.accessToken.findUniqueOrThrow({ where: { id: 'tok1' } })).toMatchObject({ name: 'n', permission: 'read_write' });
    expect(await db.$queryRaw<{ version: string }[]>`SELECT sqlite_version() AS version`).toHaveLength(1);
  });

  test('refuses a client it did not make', () => {
    expect(() => databaseProviderOf({} as Db)).toThrow(/was not made by createDb/);
  });

  describe.skipIf(!postgresReachable)('PostgreSQL at 127.0.0.1:5432', () => {
    test('a postgres database gets the PostgreSQL client', async () => {
      const db = await migratedDb(createTestPostgresDatabase);
      expect(databaseProviderOf(db)).toBe('postgresql');
      await db.accessToken.create({ data: { id: 'tok1', name: 'n', secretHash: 'h' } });
      expect(await db.accessToken.findUniqueOrThrow({ where: { id: 'tok1' } })).toMatchObject({ name: 'n', permission: 'read_write' });
      const [server] = await db.$queryRaw<{ version: string }[]>`SELECT version()`;
      expect(server?.version).toMatch(/^PostgreSQL /);
    });

    test('model queries and raw SQL both use the schema the URL names', async () => {
      const db = await migratedDb(() => createTestPostgresDatabase({ schema: 'video' }));
      await db.user.create({ data: { id: 'u1', email: 'a@example.com', passwordHash: 'x' } });
      expect(await db.$queryRaw<{ email: string }[]>`SELECT "email" FROM "User"`).toEqual([{ email: 'a@example.com' }]);
      expect(await db.$queryRaw<{ schema: string }[]>`SELECT current_schema() AS schema`).toEqual([{ schema: 'video' }]);
    });
  });
});

describe('SQLite shared by two processes (the server and the CLI)', () => {
  // Another process commits a row every millisecond or so while this one runs transactions that
  // read before they write, as deleteWebhookEndpoint does. A deferred BEGIN fails such a
  // transaction at its first write (SQLITE_BUSY_SNAPSHOT, which the busy timeout does not wait out).
  test('a transaction that reads, then writes, waits for the other writer instead of failing', async () => {
    const sqlite = await createTestSqliteDatabase();
    cleanups.push(sqlite.drop);
    const [db] = await migratedClients(async () => sqlite, 1, cleanups);
    if (sqlite.database.provider !== 'sqlite') throw new Error('expected SQLite');
    const writer = spawn(
      process.execPath,
      [
        '-e',
        `const db = new (require('better-sqlite3'))(process.argv[1], { timeout: 15000 });
         const insert = db.prepare("INSERT INTO AccessToken (id, name, secretHash, permission, createdAt) VALUES (?, 'w', 'h', 'read_write', 0)");
         let n = 0;
         const tick = () => { insert.run('writer-' + n++); setTimeout(tick, 1); };
         process.stdout.write('writing\\n');
         tick();`,
        sqlite.database.filePath,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    cleanups.push(async () => {
      writer.kill();
      await once(writer, 'exit');
    });
    await once(writer.stdout!, 'data');

    for (let i = 0; i < 20; i++) {
      await db!.$transaction(async (tx) => {
        const before = await tx.accessToken.count();
        await sleep(5);
        await tx.accessToken.create({ data: { id: `reader-${i}`, name: String(before), secretHash: 'h' } });
      });
    }
    expect(await db!.accessToken.count({ where: { id: { startsWith: 'reader-' } } })).toBe(20);
  });
});
