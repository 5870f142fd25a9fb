import { open } from 'node:fs/promises';
import { guardedLookup, sendRequest } from './guarded-request';
import { writeFully } from './positional-file-sink';
import { defaultHostLookup, type AddressPolicy, type HostLookup } from './url-policy';

// Fetches bytes [start, end) of `url` with a Range request and writes them at the same offsets of
// an existing file, under the same address policy as the main download. Anything but an exact
// 206 answer for the same total size is refused: the file may have changed, or the server may be
// sending all of it, and a wrong byte here would be read as media.

const CONTENT_RANGE = /^bytes (\d+)-(\d+)\/(\d+)$/;
const WRITE_BATCH_BYTES = 1 << 20;

export class RangeNotServedError extends Error {
  constructor(detail: string) {
    super(`the server did not serve the byte range: ${detail}`);
    this.name = 'RangeNotServedError';
  }
}

export const fetchRangeToFile = async ({
  url,
  start,
  end,
  totalBytes,
  filePath,
  addressPolicy,
  signal,
  userAgent,
  ifRange,
  lookup = defaultHostLookup,
}: {
  url: string;
  start: number;
  end: number;
  totalBytes: number;
  filePath: string;
  addressPolicy: AddressPolicy;
  signal: AbortSignal;
  userAgent: string;
  /** The ETag or Last-Modified of the full response: a changed file is then sent whole (200), not mixed. */
  ifRange: string | null;
  lookup?: HostLookup;
}): Promise<void> => {
  const response = await sendRequest(new URL(url), {
    lookup: guardedLookup(lookup, addressPolicy),
    policy: addressPolicy,
    signal,
    userAgent,
    headers: { Range: `bytes=${start}-${end - 1}`, ...(ifRange && { 'If-Range': ifRange }) },
  });
  try {
    const range = CONTENT_RANGE.exec(String(response.headers['content-range'] ?? ''));
    if (response.statusCode !== 206 || !range) throw new RangeNotServedError(`status ${response.statusCode}`);
    const [first, last, total] = [Number(range[1]), Number(range[2]), Number(range[3])];
    if (first !== start || last !== end - 1 || total !== totalBytes) {
      throw new RangeNotServedError(`got ${response.headers['content-range']} for bytes ${start}-${end - 1}/${totalBytes}`);
    }
    const file = await open(filePath, 'r+');
    try {
      let position = start;
      let batch: Buffer[] = [];
      let batchBytes = 0;
      const flush = async () => {
        position += await writeFully(file, batch, position);
        batch = [];
        batchBytes = 0;
      };
      for await (const chunk of response as AsyncIterable<Buffer>) {
        if (position + batchBytes + chunk.length > end) throw new RangeNotServedError('the server sent more bytes than asked for');
        batch.push(chunk);
        batchBytes += chunk.length;
        if (batchBytes >= WRITE_BATCH_BYTES) await flush();
      }
      await flush();
      if (position !== end) throw new RangeNotServedError('the connection closed before the range was complete');
    } finally {
      await file.close();
    }
  } finally {
    response.destroy();
  }
};
