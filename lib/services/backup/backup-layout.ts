import { copyFile } from 'node:fs/promises';
import { listDirectory } from '../../storage/list-directory';
import { LIVE_NODE_ID_FILE } from '../live/live-node-id';

// What a backup directory holds: the database copy, the installation's secrets (sessions, upload
// URLs and playback proofs stay valid after a restore), the live node id, the kept media under assets/ laid out as in
// DATA_DIR, and a manifest saying what was copied.

export const BACKUP_DATABASE_FILE = 'keyframe.db';
export const BACKUP_SECRETS_FILE = 'secrets.json';
// The node's live ingest id, when it has one: the restored node finalizes the broadcasts the
// database says it held (lib/services/live/recover-broadcasts.ts).
export const BACKUP_NODE_ID_FILE = LIVE_NODE_ID_FILE;
export const BACKUP_MANIFEST_FILE = 'backup.json';
export const BACKUP_ASSETS_FOLDER = 'assets';

// Made again on demand from the source: just-in-time segments, thumbnails and storyboards.
export const SKIPPED_ASSET_FOLDERS: ReadonlySet<string> = new Set(['hls', 'images']);

export type BackupManifest = {
  format: 1;
  startedAt: string;
  finishedAt: string;
  assets: number;
  deletedDuringBackup: number;
  files: number;
  bytes: number;
};

/** Copies `from` to `to` if it exists (an installation that never ran live ingest has no node id). */
export const copyIfPresent = async (from: string, to: string, mode?: number): Promise<void> => {
  try {
    await copyFile(from, to, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
};

export const assertEmptyOrMissing = async (directory: string, what: string): Promise<void> => {
  if ((await listDirectory(directory)).length > 0) throw new Error(`${what} ${directory} is not empty`);
};
