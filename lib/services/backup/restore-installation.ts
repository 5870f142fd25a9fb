import { constants } from 'node:fs';
import { copyFile, mkdir, readFile, rename, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Env } from '../../env';
import { sqliteIntegrity } from '../../db/sqlite-backup';
import {
  BACKUP_ASSETS_FOLDER,
  BACKUP_DATABASE_FILE,
  BACKUP_MANIFEST_FILE,
  BACKUP_NODE_ID_FILE,
  BACKUP_SECRETS_FILE,
  type BackupManifest,
  assertEmptyOrMissing,
  copyIfPresent,
} from './backup-layout';
import { copyTree } from './copy-tree';

// `keyframe restore DIR`: a backup made by `keyframe backup` into a fresh DATA_DIR, the server not
// running on it. The media first, the database last: a DATA_DIR with a database in it is a
// complete restore. The server applies newer migrations when it starts, as after an upgrade.

const readManifest = async (directory: string): Promise<BackupManifest> => {
  let manifest: Partial<BackupManifest>;
  try {
    manifest = JSON.parse(await readFile(path.join(directory, BACKUP_MANIFEST_FILE), 'utf8')) as Partial<BackupManifest>;
  } catch {
    throw new Error(`${directory} is not a Keyframe backup (no readable ${BACKUP_MANIFEST_FILE})`);
  }
  if (manifest.format !== 1) throw new Error(`${directory} is a backup of format ${String(manifest.format)}, which this version cannot restore`);
  return manifest as BackupManifest;
};

export const restoreInstallation = async (env: Env, directory: string): Promise<BackupManifest & { dataDir: string }> => {
  if (env.database.provider !== 'sqlite' || env.storage.driver !== 'local-disk') {
    throw new Error('keyframe restore brings back the embedded default (SQLite and local disk); unset DATABASE_URL and S3_BUCKET');
  }
  const source = path.resolve(directory);
  await assertEmptyOrMissing(env.dataDir, 'DATA_DIR (restore into a fresh one)');
  const manifest = await readManifest(source);
  const databaseFile = env.database.filePath;
  if (await stat(databaseFile).then(() => true, () => false)) throw new Error(`${databaseFile} already exists; restore into a fresh DATA_DIR`);

  await mkdir(env.dataDir, { recursive: true });
  const counts = await copyTree(path.join(source, BACKUP_ASSETS_FOLDER), path.join(env.dataDir, BACKUP_ASSETS_FOLDER));
  await copyFile(path.join(source, BACKUP_SECRETS_FILE), path.join(env.dataDir, BACKUP_SECRETS_FILE), constants.COPYFILE_EXCL);
  await copyIfPresent(path.join(source, BACKUP_NODE_ID_FILE), path.join(env.dataDir, BACKUP_NODE_ID_FILE), constants.COPYFILE_EXCL);
  await mkdir(path.dirname(databaseFile), { recursive: true });
  const partial = `${databaseFile}.restoring.tmp`;
  await copyFile(path.join(source, BACKUP_DATABASE_FILE), partial);
  const integrity = sqliteIntegrity(partial);
  if (integrity !== 'ok') throw new Error(`the backup's database failed its integrity check: ${integrity}`);
  await rename(partial, databaseFile);
  if (counts.files !== manifest.files) {
    throw new Error(`the backup lists ${manifest.files} files and ${counts.files} were restored; ${env.dataDir} is incomplete, empty it before trying again`);
  }
  return { ...manifest, dataDir: env.dataDir };
};
