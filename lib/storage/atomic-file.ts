import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

// Files are written so that readers only ever see them complete: temp file in the same folder,
// fsync, rename. A crash leaves at most a stray temp file, never a partial file under its real name.

const tempPathFor = (target: string): string => `${target}.${randomBytes(6).toString('hex')}.tmp`;

const renameIntoPlace = async (target: string, write: (temp: string) => Promise<void>): Promise<void> => {
  await mkdir(path.dirname(target), { recursive: true });
  const temp = tempPathFor(target);
  try {
    await write(temp);
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
};

export const publishFile = (target: string, data: Uint8Array): Promise<void> =>
  renameIntoPlace(target, async (temp) => {
    const handle = await open(temp, 'w');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
  });

/** Like publishFile, for bytes that arrive as a stream. Returns the number of bytes written. */
export const publishStream = async (target: string, source: Readable): Promise<number> => {
  let bytes = 0;
  await renameIntoPlace(target, async (temp) => {
    source.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    await pipeline(source, createWriteStream(temp));
    const handle = await open(temp, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  });
  return bytes;
};
