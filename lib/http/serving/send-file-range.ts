import { read } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { untilWritable } from '../../utils/until-writable';

// Sends bytes [start, end] of an open file to a response with positional reads into a small pool
// of reusable buffers: a buffer goes back to the pool once the socket has flushed it, so serving
// a hot segment allocates nothing (fresh 256 KiB buffers per chunk cost as much CPU as the copy
// itself). The descriptor is never closed here: it belongs to the open-file cache, which may be
// sending the same file to other clients at the same time. (fs.createReadStream closes its
// descriptor when destroyed, autoClose or not.) Resolves once no read is in flight, so the
// descriptor may be released then.

// A 4 s 540p segment (~400 KB) goes out in one read and one write; a 4 s 1080p one (~2 MB) in four.
// A response waiting on a slow client holds one chunk, never the whole file.
export const CHUNK_BYTES = 512 * 1024;
const MAX_POOLED_BUFFERS = 32;

const pool: Buffer[] = [];
const takeBuffer = () => pool.pop() ?? Buffer.allocUnsafeSlow(CHUNK_BYTES);
const giveBack = (buffer: Buffer) => {
  if (pool.length < MAX_POOLED_BUFFERS) pool.push(buffer);
};

const readAt = promisify(read);

export const sendFileRange = async (fd: number, start: number, end: number, response: ServerResponse): Promise<void> => {
  let position = start;
  while (position <= end) {
    if (response.destroyed) return;
    const buffer = takeBuffer();
    const { bytesRead } = await readAt(fd, buffer, 0, Math.min(CHUNK_BYTES, end - position + 1), position).catch((error: unknown) => {
      giveBack(buffer);
      throw error;
    });
    // The file is shorter than its size said: never pad a response with bytes that are not there.
    if (bytesRead === 0) {
      giveBack(buffer);
      throw new Error('file ended before its expected size');
    }
    position += bytesRead;
    const chunk = buffer.subarray(0, bytesRead);
    // Handed back only after the socket is done with it (the callbacks also run on a failed write).
    if (position > end) {
      response.end(chunk, () => giveBack(buffer));
      return;
    }
    if (!response.write(chunk, () => giveBack(buffer))) await untilWritable(response);
  }
  response.end();
};
