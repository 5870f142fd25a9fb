// The `Content-Range` request header of resumable uploads (GCS style, which @mux/upchunk speaks):
// `bytes 0-262143/1048576` carries a chunk, `bytes */1048576` asks how much has arrived.

import type { UploadContentRange } from '../services/uploads/upload-range';

export { receivedRangeHeader, type UploadContentRange } from '../services/uploads/upload-range';

export type ContentRangeParse = { ok: true; range: UploadContentRange } | { ok: false; message: string };

const CHUNK = /^bytes (\d{1,16})-(\d{1,16})\/(\d{1,16})$/;
const STATUS = /^bytes \*\/(\d{1,16})$/;

export const parseUploadContentRange = (header: string): ContentRangeParse => {
  const value = header.trim();
  const status = STATUS.exec(value);
  if (status) return { ok: true, range: { kind: 'status', total: Number(status[1]) } };
  const chunk = CHUNK.exec(value);
  if (!chunk) {
    return { ok: false, message: `Content-Range "${value}" is not of the form "bytes START-END/TOTAL" or "bytes */TOTAL"` };
  }
  const [start, end, total] = [Number(chunk[1]), Number(chunk[2]), Number(chunk[3])];
  if (end < start) return { ok: false, message: `Content-Range "${value}" ends before it starts` };
  if (end >= total) return { ok: false, message: `Content-Range "${value}" goes past the total size of ${total} bytes` };
  return { ok: true, range: { kind: 'chunk', start, end, total } };
};
