import { createReadStream } from 'node:fs';
import { open, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { publishFile, publishStream } from './atomic-file';
import { listDirectory } from './list-directory';
import { assertObjectKey, assertObjectPrefix, isBufferBody, type LocalDiskObjectStore } from './object-store';

// Objects are files under one root folder (DATA_DIR), at the path their key spells: the layout
// Keyframe has always had. A file written at its final path by the code that produced it is
// already stored, so putting it is a no-op: the default configuration makes no extra copies.

const isMissing = (error: unknown): boolean => (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';

export const createLocalDiskStore = ({ root }: { root: string }): LocalDiskObjectStore => {
  const absoluteRoot = path.resolve(root);
  const pathOf = (key: string): string => {
    assertObjectKey(key);
    return path.join(absoluteRoot, ...key.split('/'));
  };

  const openStream = async (file: string, range?: { start: number; end: number }): Promise<Readable | null> => {
    // Opened first, so a missing file is a null rather than an error event on the stream.
    const handle = await open(file, 'r').catch((error: unknown) => {
      if (isMissing(error)) return null;
      throw error;
    });
    if (!handle) return null;
    return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
  };

  return {
    kind: 'local-disk',
    pathOf,

    async put(key, body) {
      const target = pathOf(key);
      if (isBufferBody(body)) return publishFile(target, body);
      if (path.resolve(body.file) === target && !body.range) return;
      await publishStream(target, createReadStream(body.file, body.range ?? {}));
    },

    async getToFile(key, localPath) {
      const source = pathOf(key);
      if (path.resolve(localPath) === source) return (await this.stat(key)) !== null;
      const stream = await openStream(source);
      if (!stream) return false;
      await publishStream(localPath, stream);
      return true;
    },

    async stat(key) {
      const info = await stat(pathOf(key)).catch((error: unknown) => {
        if (isMissing(error)) return null;
        throw error;
      });
      return info?.isFile() ? { size: info.size, lastModified: info.mtime } : null;
    },

    createReadStream: (key, range) => openStream(pathOf(key), range),

    async delete(key) {
      await rm(pathOf(key), { force: true });
    },

    async listFolder(prefix) {
      assertObjectPrefix(prefix);
      const entries = await listDirectory(pathOf(prefix.slice(0, -1)));
      return entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
    },

    async deletePrefix(prefix) {
      assertObjectPrefix(prefix);
      await rm(pathOf(prefix.slice(0, -1)), { recursive: true, force: true });
    },
  };
};
