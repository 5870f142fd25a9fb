import Database from 'better-sqlite3';

// The embedded database's side of `keyframe backup`: SQLite's online backup API, which copies one
// consistent state of the file while the server keeps writing. All pages in one step: copied a
// hundred at a time, every write of the server's in between would restart the copy, and under a
// steady load it would never finish. (WAL mode: the server's writers do not wait for the step.)
// Raw better-sqlite3 rather than Prisma: a backup is a file-level operation, and the copy is queried
// before any server uses it.

const ALL_REMAINING_PAGES = 0x7fffffff;

/** Copies the database at `sourceFile` (in use or not) to `targetFile`, a state it was in at one moment. */
export const backupSqliteFile = async (sourceFile: string, targetFile: string): Promise<void> => {
  const source = new Database(sourceFile, { readonly: true, fileMustExist: true, timeout: 15_000 });
  try {
    await source.backup(targetFile, { progress: () => ALL_REMAINING_PAGES });
  } finally {
    source.close();
  }
};

/** What the copy holds, read from the copy itself. */
export const assetIdsInSqliteFile = (file: string): string[] => {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT "id" FROM "Asset" ORDER BY "id"').all() as { id: string }[]).map(({ id }) => id);
  } finally {
    db.close();
  }
};

/** Which of `ids` still exist in the database at `file` (the live one, while the server runs). */
export const existingAssetIds = (file: string, ids: string[]): Set<string> => {
  const db = new Database(file, { readonly: true, fileMustExist: true, timeout: 15_000 });
  try {
    const exists = db.prepare('SELECT 1 FROM "Asset" WHERE "id" = ?').pluck();
    return new Set(ids.filter((id) => exists.get(id) !== undefined));
  } finally {
    db.close();
  }
};

/** Removes assets (their playback IDs, tracks and static renditions with them) from the copy at `file`. */
export const deleteAssetsFromSqliteFile = (file: string, ids: string[]): void => {
  if (ids.length === 0) return;
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma('foreign_keys = ON');
    const removePlaybackIds = db.prepare('DELETE FROM "PlaybackId" WHERE "assetId" = ?');
    const removeAsset = db.prepare('DELETE FROM "Asset" WHERE "id" = ?');
    db.transaction(() => {
      for (const id of ids) {
        removePlaybackIds.run(id);
        removeAsset.run(id);
      }
    })();
  } finally {
    db.close();
  }
};

/** `PRAGMA integrity_check` of the copy: 'ok', or what SQLite found wrong. */
export const sqliteIntegrity = (file: string): string => {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (db.pragma('integrity_check', { simple: true }) as string) ?? 'no answer';
  } finally {
    db.close();
  }
};
