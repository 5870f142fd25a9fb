// What an upload request says about its bytes (parsed from `Content-Range` by lib/http), and the
// `Range` header that tells the client which bytes are stored (none: no header) — GCS style, which
// @mux/upchunk speaks.

export type UploadContentRange =
  | { kind: 'chunk'; start: number; end: number; total: number }
  | { kind: 'status'; total: number };

export const receivedRangeHeader = (received: number): Record<string, string> =>
  received > 0 ? { range: `bytes=0-${received - 1}` } : {};
