import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Env } from '../../env';
import { assetIdsInSqliteFile, backupSqliteFile, deleteAssetsFromSqliteFile, existingAssetIds, sqliteIntegrity } from '../../db/sqlite-backup';
import { assetDirectory } from '../../storage/asset-files';
import { copyTree, treeSize } from './copy-tree';
import {
  BACKUP_ASSETS_FOLDER,
  BACKUP_DATABASE_FILE,
  BACKUP_MANIFEST_FILE,
  BACKUP_NODE_ID_FILE,
  BACKUP_SECRETS_FILE,
  SKIPPED_ASSET_FOLDERS,
  type BackupManifest,
  assertEmptyOrMissing,
  copyIfPresent,
} from './backup-layout';

// `keyframe backup DIR` for the embedded default (SQLite and local disk), safe while the server
// runs: first the database, copied as one consistent state by SQLite's online backup; then, for
// each asset in that copy, the files that cannot be made again (the source, added audio and text
// tracks, static renditions, watermark images, live recordings). Segments and images are left out:
// they are encoded again on demand. Every file is published under its final name only when
// complete (written aside, then renamed), so a file copied is whole. An asset deleted while its
// files were being copied is taken out of the copy of the database too, so the backup is the state
// of the moment the database was copied, minus what was deleted during the backup.

export type BackupResult = BackupManifest & { directory: string };

export type BackupPhase = 'database copied' | 'files copied';

export const backupInstallation = async (
  env: Env,
  directory: string,
  { onPhase }: { onPhase?: (phase: BackupPhase) => void | Promise<void> } = {},
): Promise<BackupResult> => {
  if (env.database.provider !== 'sqlite') {
    throw new Error('keyframe backup copies the embedded SQLite database; with PostgreSQL back up the database with pg_dump (see docs/configuration.md, CLI)');
  }
  if (env.storage.driver !== 'local-disk') {
    throw new Error("keyframe backup copies media from DATA_DIR; with S3 storage the bucket holds it: use the bucket's versioning or replication (see docs/configuration.md, CLI)");
  }
  const target = path.resolve(directory);
  await assertEmptyOrMissing(target, 'the backup directory');
  await mkdir(target, { recursive: true });
  const startedAt = new Date();
  const databaseCopy = path.join(target, BACKUP_DATABASE_FILE);
  await backupSqliteFile(env.database.filePath, databaseCopy);
  await copyFile(path.join(env.dataDir, BACKUP_SECRETS_FILE), path.join(target, BACKUP_SECRETS_FILE));
  await copyIfPresent(path.join(env.dataDir, BACKUP_NODE_ID_FILE), path.join(target, BACKUP_NODE_ID_FILE));

  const assetIds = assetIdsInSqliteFile(databaseCopy);
  await onPhase?.('database copied');
  for (const assetId of assetIds) await copyTree(assetDirectory(env.dataDir, assetId), assetDirectory(target, assetId), { skip: SKIPPED_ASSET_FOLDERS });
  await onPhase?.('files copied');
  // Deleted while their files were copied: out of the copy as well, files and rows.
  const stillThere = existingAssetIds(env.database.filePath, assetIds);
  const deletedDuring = assetIds.filter((id) => !stillThere.has(id));
  for (const assetId of deletedDuring) await rm(assetDirectory(target, assetId), { recursive: true, force: true });
  deleteAssetsFromSqliteFile(databaseCopy, deletedDuring);
  const integrity = sqliteIntegrity(databaseCopy);
  if (integrity !== 'ok') throw new Error(`the copy of the database failed its integrity check: ${integrity}`);

  const counts = await treeSize(path.join(target, BACKUP_ASSETS_FOLDER));
  const manifest: BackupManifest = {
    format: 1,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    assets: assetIds.length - deletedDuring.length,
    deletedDuringBackup: deletedDuring.length,
    files: counts.files,
    bytes: counts.bytes,
  };
  await writeFile(path.join(target, BACKUP_MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  return { ...manifest, directory: target };
};
