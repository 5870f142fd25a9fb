import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { Db } from '../db/client';
import { createTestPostgresDatabase, createTestSqliteDatabase, isTestPostgresReachable, migratedClients, type TestDatabase } from '../db/test-databases';
import { adoptInstallationSecrets, instanceSecrets } from './instance-secrets';

const postgresReachable = await isTestPostgresReachable();

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const newDataDir = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'keyframe-secrets-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

describe.each([
  { name: 'SQLite', make: createTestSqliteDatabase, skip: false },
  { name: 'PostgreSQL at 127.0.0.1:5432', make: (): Promise<TestDatabase> => createTestPostgresDatabase(), skip: !postgresReachable },
])('installation secrets on $name', ({ make, skip }) => {
  test.skipIf(skip)('nodes with their own DATA_DIR end up with the first node’s secrets, also in their secrets.json', async () => {
    const [a, b] = (await migratedClients(make, 2, cleanups)) as [Db, Db];
    const first = newDataDir();
    const second = newDataDir();
    const ownOfFirst = { ...instanceSecrets(first) };
    const ownOfSecond = { ...instanceSecrets(second) };
    expect(ownOfSecond.uploadUrlKey).not.toBe(ownOfFirst.uploadUrlKey);

    expect(await adoptInstallationSecrets(first, a)).toEqual({ changed: false });
    expect(await adoptInstallationSecrets(second, b)).toEqual({ changed: true });
    expect(instanceSecrets(second)).toEqual(ownOfFirst);
    expect(JSON.parse(readFileSync(path.join(second, 'secrets.json'), 'utf8'))).toEqual(ownOfFirst);
    // A restart changes nothing.
    expect(await adoptInstallationSecrets(second, b)).toEqual({ changed: false });
  });

  test.skipIf(skip)('nodes starting at once agree', async () => {
    const clients = await migratedClients(make, 3, cleanups);
    const dirs = clients.map(() => newDataDir());
    await Promise.all(clients.map((db, index) => adoptInstallationSecrets(dirs[index]!, db)));
    const adopted = dirs.map((dir) => instanceSecrets(dir));
    expect(new Set(adopted.map((secrets) => JSON.stringify(secrets))).size).toBe(1);
  });
});
