import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';

/** The entries of `directory` (with `recursive`, of everything under it); none when it does not exist. */
export const listDirectory = async (directory: string, { recursive = false }: { recursive?: boolean } = {}): Promise<Dirent[]> => {
  try {
    return await readdir(directory, { withFileTypes: true, recursive });
  } catch (error) {
    if ((error as NodeJS.ErrnoException | null)?.code === 'ENOENT') return [];
    throw error;
  }
};
