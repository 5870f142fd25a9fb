import path from 'node:path';
import { publishFile } from '../../storage/atomic-file';
import { fetchStillImage } from '../ingest/fetch-still-image';

// A broadcast's reconnect slate, fetched when the broadcast starts (as Mux does) so that a
// disconnect shows it at once: the stream's reconnect_slate_url, checked to be one PNG or JPEG
// (fetch-still-image.ts), kept as a PNG in the broadcast's folder. Anything wrong with it leaves
// the default card in its place, and says why (the caller turns that into
// video.live_stream.warning).

const MAX_SLATE_BYTES = 16 * 1024 * 1024;
const SLATE_DOWNLOAD_TIMEOUT_MS = 20_000;
const SLATE_FILE = 'slate.png';

export type SlateImage = { imagePath: string; problem: string | null };

export const prepareSlateImage = async ({
  url,
  directory,
  defaultImagePath,
  signal,
}: {
  url: string | null;
  directory: string;
  defaultImagePath: string;
  signal: AbortSignal;
}): Promise<SlateImage> => {
  if (!url) return { imagePath: defaultImagePath, problem: null };
  const target = path.join(directory, SLATE_FILE);
  const fetched = await fetchStillImage({ url, workPath: `${target}.download`, subject: 'the reconnect slate', maxBytes: MAX_SLATE_BYTES, timeoutMs: SLATE_DOWNLOAD_TIMEOUT_MS, signal });
  if (!fetched.ok) return { imagePath: defaultImagePath, problem: fetched.message };
  await publishFile(target, fetched.png);
  return { imagePath: target, problem: null };
};
