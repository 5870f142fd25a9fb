import { constants } from 'node:fs';
import { copyFile, mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { listDirectory } from '../../storage/list-directory';

export type Counts = { files: number; bytes: number };

// Atomic writes (lib/storage/atomic-file.ts) and downloads in progress (lib/ingest/download-to-file.ts).
const isBeingWritten = (name: string) => name.endsWith('.tmp') || name.endsWith('.part');

/** Files and bytes under `directory`. */
export const treeSize = async (directory: string): Promise<Counts> => {
  const counts: Counts = { files: 0, bytes: 0 };
  const entries = await listDirectory(directory, { recursive: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    counts.files++;
    counts.bytes += (await stat(path.join(entry.parentPath, entry.name))).size;
  }
  return counts;
};

/**
 * Copies the tree at `from` to `to`, but the folders named in `skip` (at its top level) and files
 * still being written (a file's final name appears once it is complete). A file
 * removed meanwhile (its asset deleted) is passed over; the caller decides what that means.
 */
export const copyTree = async (
  from: string,
  to: string,
  { skip = new Set(), counts = { files: 0, bytes: 0 } }: { skip?: ReadonlySet<string>; counts?: Counts } = {},
): Promise<Counts> => {
  const entries = await listDirectory(from);
  if (entries.length === 0) return counts;
  await mkdir(to, { recursive: true });
  for (const entry of entries) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) {
      if (!skip.has(entry.name)) await copyTree(source, target, { counts });
      continue;
    }
    if (!entry.isFile() || isBeingWritten(entry.name)) continue;
    try {
      // A copy-on-write clone where the file system can make one, else a plain copy.
      await copyFile(source, target, constants.COPYFILE_FICLONE);
      counts.files++;
      counts.bytes += (await stat(target)).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return counts;
};
