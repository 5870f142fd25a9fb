import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createDb, type Db } from '../../db/client';
import { migrateDatabase } from '../../db/migrate-database';
import { sqliteIntegrity } from '../../db/sqlite-backup';
import { getEnv, type Env } from '../../env';
import { assetDirectory } from '../../storage/asset-files';
import { backupInstallation } from './backup-installation';
import { restoreInstallation } from './restore-installation';

// Backups of a real SQLite installation while another connection keeps writing, and restores of
// them into fresh data directories.

const root = mkdtempSync(path.join(os.tmpdir(), 'keyframe-backup-'));
const dataDir = path.join(root, 'data');
const databaseFile = path.join(dataDir, 'keyframe.db');
const envFor = (directory: string): Env => ({
  ...getEnv(),
  dataDir: directory,
  database: { provider: 'sqlite', filePath: path.join(directory, 'keyframe.db'), label: 'test' },
  storage: { driver: 'local-disk' },
});
let db: Db;

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const filesUnder = (directory: string): string[] =>
  readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(directory, path.join(entry.parentPath, entry.name)))
    .sort();

const write = (relative: string, contents: string | Buffer) => {
  const file = path.join(dataDir, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, contents);
};

const createAsset = async (id: string) => {
  await db.asset.create({ data: { id, status: 'ready', encodingTier: 'smart', inputsJson: '[]' } });
  await db.playbackId.create({ data: { id: `${id}-playback`, assetId: id, policy: 'public' } });
  write(`assets/${id}/source`, Buffer.alloc(64 * 1024, id));
  write(`assets/${id}/tracks/t1/track.vtt`, 'WEBVTT\n');
  write(`assets/${id}/hls/360p/0.m4s`, 'segment');
  write(`assets/${id}/images/thumbnail.jpg`, 'jpeg');
  write(`assets/${id}/static/s1-highest.mp4.abc123.tmp`, 'half an mp4');
};

beforeAll(async () => {
  mkdirSync(dataDir, { recursive: true });
  const projectRoot = path.resolve(import.meta.dirname, '../../..');
  await migrateDatabase(envFor(dataDir).database, { sqlite: path.join(projectRoot, 'prisma', 'migrations'), postgresql: path.join(projectRoot, 'prisma', 'postgres', 'migrations') });
  db = createDb(envFor(dataDir).database);
  writeFileSync(path.join(dataDir, 'secrets.json'), JSON.stringify({ uploadUrlKey: 'a', sessionSecret: 'b', playbackProofKey: 'c' }));
  writeFileSync(path.join(dataDir, 'live-node-id'), 'host/0123456789ab\n');
  for (const id of ['asset1', 'asset2', 'asset3']) await createAsset(id);
});

afterAll(async () => {
  await db.$disconnect();
  rmSync(root, { recursive: true, force: true });
});

describe('keyframe backup and restore', () => {
  test('a backup taken while assets are created and deleted holds one consistent state, and restores whole', { timeout: 20_000 }, async () => {
    // Another connection keeps writing all through the backup, as the server would (yielding to
    // the event loop between writes: this process runs the backup too).
    let writing = true;
    let created = 0;
    const writer = (async () => {
      while (writing) {
        await createAsset(`busy${created++}`);
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const target = path.join(root, 'backup');
    const result = await backupInstallation(envFor(dataDir), target, {
      // Deleted after the database was copied, while the files are being copied.
      onPhase: async (phase) => {
        if (phase !== 'database copied') return;
        await db.playbackId.deleteMany({ where: { assetId: 'asset2' } });
        await db.asset.delete({ where: { id: 'asset2' } });
        rmSync(assetDirectory(dataDir, 'asset2'), { recursive: true, force: true });
      },
    });
    writing = false;
    await writer;
    expect(created, 'assets created during the backup').toBeGreaterThan(1);

    expect(sqliteIntegrity(path.join(target, 'keyframe.db'))).toBe('ok');
    const copy = createDb(envFor(target).database);
    const copied = (await copy.asset.findMany({ select: { id: true } })).map(({ id }) => id);
    await copy.$disconnect();
    expect(copied).toContain('asset1');
    expect(copied).toContain('asset3');
    expect(copied, 'deleted during the backup').not.toContain('asset2');
    expect(result.deletedDuringBackup).toBe(1);
    expect(result.assets).toBe(copied.length);
    // Every asset in the copy has its kept files, and nothing encoded again on demand or half written.
    const files = filesUnder(path.join(target, 'assets'));
    expect(files).toEqual(copied.flatMap((id) => [`${id}/source`, `${id}/tracks/t1/track.vtt`]).sort());
    expect(result.files).toBe(files.length);
    expect(readdirSync(target).sort()).toEqual(['assets', 'backup.json', 'keyframe.db', 'live-node-id', 'secrets.json']);

    // Restored into a fresh DATA_DIR: the same rows, byte-identical files.
    const restoredDir = path.join(root, 'restored');
    const restored = await restoreInstallation(envFor(restoredDir), target);
    expect(restored.assets).toBe(copied.length);
    const again = createDb(envFor(restoredDir).database);
    expect((await again.asset.findMany({ select: { id: true } })).map(({ id }) => id).sort()).toEqual([...copied].sort());
    expect(await again.playbackId.count({ where: { assetId: 'asset1' } })).toBe(1);
    await again.$disconnect();
    for (const file of files) expect(sha(path.join(restoredDir, 'assets', file)), file).toBe(sha(path.join(target, 'assets', file)));
    expect(readFileSync(path.join(restoredDir, 'secrets.json'), 'utf8')).toBe(readFileSync(path.join(dataDir, 'secrets.json'), 'utf8'));
    // The restored node is the node the database's broadcasts name.
    expect(readFileSync(path.join(restoredDir, 'live-node-id'), 'utf8')).toBe('host/0123456789ab\n');
  });

  test('refuses to write into a non-empty directory, to restore over an installation, or from what is not a backup', async () => {
    const busy = path.join(root, 'busy');
    mkdirSync(busy);
    writeFileSync(path.join(busy, 'notes.txt'), 'mine');
    await expect(backupInstallation(envFor(dataDir), busy)).rejects.toThrow(/is not empty/);
    await expect(restoreInstallation(envFor(dataDir), path.join(root, 'backup'))).rejects.toThrow(/DATA_DIR \(restore into a fresh one\) .* is not empty/);
    await expect(restoreInstallation(envFor(path.join(root, 'fresh')), busy)).rejects.toThrow(/is not a Keyframe backup/);
    expect(readFileSync(path.join(busy, 'notes.txt'), 'utf8')).toBe('mine');
  });

  test('the scaled-out deployment is backed up with its own tools', async () => {
    const env = envFor(dataDir);
    await expect(backupInstallation({ ...env, database: { provider: 'postgresql', url: 'postgresql://x/y', schema: 'public', label: 'pg' } }, path.join(root, 'pg'))).rejects.toThrow(/pg_dump/);
    expect(databaseFile).toBe(env.database.provider === 'sqlite' ? env.database.filePath : '');
  });
});
