import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { getEnv } from '../../env';
import { downloadToFile, partialDownloadPath, type DownloadResult } from '../../ingest/download-to-file';
import { fetchRangeToFile } from '../../ingest/fetch-range';
import { GrowingFile } from '../../ingest/growing-file';
import { allowAllAddresses, isPublicAddress } from '../../ingest/url-policy';
import { withIngestCpuSlot } from './ingest-cpu-slots';
import { inspectWhileDownloading, type EarlyInspection } from './inspect-while-downloading';
import { partialSources } from './partial-sources';
import { registerDownloadingSource } from '../inputs/source-input';

const USER_AGENT = 'Keyframe/0.1 (+https://github.com/keyframe-video/keyframe)';
// Readers that were handed the loopback URL during the download may still seek (new requests)
// after it completes; new readers get the file's path.
const SERVE_AFTER_DOWNLOAD_MS = 15 * 60_000;
// While the early inspection runs, the bulk of the download waits once the head is in: on a small
// machine a fast download takes a core the probe and the decode checks need, and on a real network
// pausing a long transfer for a moment costs nothing. Capped, so a wrong guess cannot stall it.
const MAX_HOLD_MS = 2_000;

export type SourceDownload = {
  /** Settles when the source is complete at its path (or the download failed). */
  done: Promise<DownloadResult>;
  /** What could be checked while it downloads (null: nothing, inspect the complete file). */
  early: Promise<EarlyInspection | null>;
  /** The size the server declared, once known. */
  declaredBytes: () => number | null;
};

// Fetches an asset's input to its source path under the SSRF policy and the size/time limits.
// While it arrives, readers can already use it through a loopback URL (see source-input.ts), and,
// when `inspect` is set, the file is inspected early where its layout allows.
export const downloadSource = async ({
  assetId,
  url,
  sourcePath,
  signal,
  inspect,
}: {
  assetId: string;
  url: string;
  sourcePath: string;
  signal: AbortSignal;
  inspect: boolean;
}): Promise<SourceDownload> => {
  const env = getEnv();
  await mkdir(path.dirname(sourcePath), { recursive: true });
  const partPath = partialDownloadPath(sourcePath);
  const addressPolicy = env.allowPrivateInputUrls ? allowAllAddresses : isPublicAddress;
  const stopEarly = new AbortController();
  const onAbort = () => stopEarly.abort();
  // Once the main download has every byte, a range request still running is pointless; a server
  // that trickles it must not keep the inspection waiting.
  const stopTail = new AbortController();
  stopEarly.signal.addEventListener('abort', () => stopTail.abort(), { once: true });
  signal.addEventListener('abort', onAbort, { once: true });

  let file: GrowingFile | null = null;
  let hold: { fromByte: number; until: Promise<void> } | null = null;
  let release = () => undefined as void;
  let announceBody: (body: { file: GrowingFile; url: string; validator: string | null; finalUrl: string } | null) => void = () => undefined;
  const bodyStarted = new Promise<Parameters<typeof announceBody>[0]>((resolve) => (announceBody = resolve));

  const done = downloadToFile({
    url,
    destinationPath: sourcePath,
    maxBytes: env.maxInputBytes,
    timeoutMs: env.inputDownloadTimeoutMs,
    addressPolicy,
    signal,
    userAgent: USER_AGENT,
    // Without a declared size, readers cannot be told where the file ends: they wait for it.
    onBodyStart: ({ finalUrl, declaredBytes, validator }) => {
      if (declaredBytes === null) return announceBody(null);
      const growing = new GrowingFile(partPath, declaredBytes);
      file = growing;
      void partialSources().serve(assetId, growing, sourcePath).then(({ url: inputUrl, release: stopServing }) => {
        const unregister = registerDownloadingSource(assetId, inputUrl);
        release = () => {
          unregister();
          setTimeout(stopServing, SERVE_AFTER_DOWNLOAD_MS).unref();
        };
        if (growing.isComplete) release();
        announceBody({ file: growing, url: inputUrl, validator, finalUrl });
      }, () => announceBody(null));
    },
    onBytesWritten: (bytes) => file?.advancePrefix(bytes),
    holdBeforeWrite: (bytesWritten) => (hold && bytesWritten >= hold.fromByte ? hold.until : null),
  }).then(
    (result) => {
      file?.complete();
      return result;
    },
    (error: unknown) => {
      file?.fail(error instanceof Error ? error : new Error(String(error)));
      stopEarly.abort();
      throw error;
    },
  ).finally(() => {
    stopTail.abort();
    announceBody(null);
    release();
  });

  const early = inspect
    ? bodyStarted.then((body) =>
        body
          ? inspectWhileDownloading({
              file: body.file,
              inputUrl: body.url,
              fetchTail: async (start, end) => {
                await fetchRangeToFile({
                  url: body.finalUrl,
                  start,
                  end,
                  totalBytes: body.file.totalBytes,
                  filePath: partPath,
                  addressPolicy,
                  userAgent: USER_AGENT,
                  ifRange: body.validator,
                  signal: stopTail.signal,
                });
                body.file.addRange(start, end);
              },
              ffprobePath: env.ffprobePath,
              ffmpegPath: env.ffmpegPath,
              signal: stopEarly.signal,
              runChecks: (checks) => withIngestCpuSlot(stopEarly.signal, checks),
              holdDownload: (fromByte, until) => {
                let timer: NodeJS.Timeout | undefined;
                const released = Promise.race([
                  until.catch(() => undefined),
                  new Promise((resolve) => (timer = setTimeout(resolve, MAX_HOLD_MS))),
                ]).then(() => {
                  clearTimeout(timer);
                  hold = null;
                });
                hold = { fromByte, until: released };
              },
            })
          : null,
      )
    : Promise.resolve(null);
  void Promise.allSettled([done, early]).then(() => signal.removeEventListener('abort', onAbort));
  return { done, early, declaredBytes: () => (file as GrowingFile | null)?.totalBytes ?? null };
};
