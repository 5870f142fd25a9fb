import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { createTestPostgresDatabase, isTestPostgresReachable, migratedClients } from '../../lib/db/test-databases';
import { openAssetDb, PostgresAssetDb, SqliteAssetDb, type AssetDb } from './asset-db';

// The benchmark times readiness from the rows the server wrote: both databases must give back the
// same epoch milliseconds Prisma stored, whatever the process's time zone.

const postgresReachable = await isTestPostgresReachable();
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const createdAt = new Date('2026-03-29T01:30:00.125Z');
const readyAt = new Date('2026-03-29T01:30:00.911Z');
const assetRow = (id: string, status: string) => ({ id, status, encodingTier: 'smart', inputsJson: '[]', createdAt, readyAt: status === 'ready' ? readyAt : null });

const expectRows = async (db: AssetDb) => {
  cleanups.push(() => db.close());
  expect(await db.row('missing')).toBeNull();
  expect(await db.row('asset-ready')).toEqual({ status: 'ready', createdAt: createdAt.getTime(), readyAt: readyAt.getTime(), errorType: null, errorMessagesJson: null });
  const { row } = await db.waitForReady('asset-ready', { pollMs: 5, timeoutMs: 1_000 });
  expect(row.readyAt! - row.createdAt).toBe(786);
  await expect(db.waitForReady('asset-preparing', { pollMs: 5, timeoutMs: 100 })).rejects.toThrow(/not ready within 100 ms \(status preparing\)/);
};

describe('asset readiness read from the server’s database', () => {
  test('SQLite file in DATA_DIR (the embedded default)', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'keyframe-bench-assetdb-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const filePath = path.join(dataDir, 'keyframe.db');
    const [prisma] = await migratedClients(async () => ({ database: { provider: 'sqlite', filePath, label: filePath }, drop: async () => undefined }), 1, cleanups);
    await prisma!.asset.createMany({ data: [assetRow('asset-ready', 'ready'), assetRow('asset-preparing', 'preparing')] });
    const db = await openAssetDb({ dataDir, env: {} });
    expect(db).toBeInstanceOf(SqliteAssetDb);
    await expectRows(db);
  });

  test.skipIf(!postgresReachable)('PostgreSQL named by the server’s DATABASE_URL, in the schema it names', async () => {
    const test = await createTestPostgresDatabase({ schema: 'bench_schema' });
    const [prisma] = await migratedClients(async () => test, 1, cleanups);
    await prisma!.asset.createMany({ data: [assetRow('asset-ready', 'ready'), assetRow('asset-preparing', 'preparing')] });
    const url = new URL(test.database.provider === 'postgresql' ? test.database.url : '');
    url.searchParams.set('schema', 'bench_schema');
    const db = await openAssetDb({ dataDir: '/nonexistent', env: { DATABASE_URL: url.toString() } });
    expect(db).toBeInstanceOf(PostgresAssetDb);
    await expectRows(db);
  });
});
