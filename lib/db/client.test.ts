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
