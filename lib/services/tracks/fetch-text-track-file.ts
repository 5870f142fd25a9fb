import { readFile, rm } from 'node:fs/promises';
import { getEnv } from '../../env';
import { downloadToFile, isDownloadError, partialDownloadPath, type DownloadError } from '../../ingest/download-to-file';
import { allowAllAddresses, isPublicAddress } from '../../ingest/url-policy';

// The file behind a text track's URL, fetched through the same guard as every input URL (address
// policy on every hop, redirects, a size cap). A failure the URL's owner has to fix is a reason
// for the track to error; one that may pass (a timeout, a refused connection, a 5xx) is thrown, so
// the job tries again and, after its last attempt, errors the track with it.

const USER_AGENT = 'Keyframe/0.1 (+https://github.com/keyframe-video/keyframe)';
// Subtitles of a three-hour film are a few hundred KB; 5 MiB leaves room and bounds the memory a
// parse takes.
export const MAX_TEXT_TRACK_BYTES = 5 * 1024 * 1024;
const DOWNLOAD_TIMEOUT_MS = 60_000;

export type FetchedTextFile = { ok: true; bytes: Buffer } | { ok: false; reason: string };

const RETRYABLE_HTTP_STATUSES = new Set([408, 425, 429]);

/** Whether trying again later could succeed. */
export const isPassingDownloadFailure = (error: DownloadError): boolean => {
  switch (error.code) {
    case 'timeout':
    case 'connect_failed':
    case 'network':
    case 'truncated':
    case 'disk':
    case 'cancelled':
      return true;
    case 'http_status':
      return error.httpStatus === undefined || error.httpStatus >= 500 || RETRYABLE_HTTP_STATUSES.has(error.httpStatus);
    default:
      return false;
  }
};

const describe = (error: DownloadError): string => error.message.replace(/^Failed to download input: /, 'The subtitle file could not be downloaded: ');

export const fetchTextTrackFile = async ({ url, downloadPath, signal }: { url: string; downloadPath: string; signal: AbortSignal }): Promise<FetchedTextFile> => {
  const env = getEnv();
  try {
    await downloadToFile({
      url,
      destinationPath: downloadPath,
      maxBytes: MAX_TEXT_TRACK_BYTES,
      timeoutMs: DOWNLOAD_TIMEOUT_MS,
      addressPolicy: env.allowPrivateInputUrls ? allowAllAddresses : isPublicAddress,
      signal,
      userAgent: USER_AGENT,
    });
    return { ok: true, bytes: await readFile(downloadPath) };
  } catch (error) {
    if (signal.aborted || !isDownloadError(error)) throw error;
    if (isPassingDownloadFailure(error)) throw new Error(describe(error), { cause: error });
    return { ok: false, reason: describe(error) };
  } finally {
    await Promise.all([rm(downloadPath, { force: true }), rm(partialDownloadPath(downloadPath), { force: true })]);
  }
};
