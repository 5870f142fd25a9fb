import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { getEnv } from '../../env';
import { downloadToFile, partialDownloadPath, type DownloadResult } from '../../ingest/download-to-file';
import { allowAllAddresses, isPublicAddress } from '../../ingest/url-policy';
import { inspectWhileDownloading, type EarlyInspection } from './inspect-while-downloading';

// Fetches an asset's input to its source path under the SSRF policy and the size/time limits, and
// inspects it while it arrives when its layout allows (see inspect-while-downloading.ts).
export const downloadSource = async ({
  url,
  sourcePath,
  signal,
}: {
  url: string;
  sourcePath: string;
  signal: AbortSignal;
}): Promise<DownloadResult & { early: Promise<EarlyInspection | null> }> => {
  const env = getEnv();
  await mkdir(path.dirname(sourcePath), { recursive: true });
  let settled = false;
  const stopEarly = new AbortController();
  const onAbort = () => stopEarly.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  const early = inspectWhileDownloading({
    partPath: partialDownloadPath(sourcePath),
    downloadFinished: () => settled,
    ffprobePath: env.ffprobePath,
    ffmpegPath: env.ffmpegPath,
    signal: stopEarly.signal,
  });
  try {
    const result = await downloadToFile({
      url,
      destinationPath: sourcePath,
      maxBytes: env.maxInputBytes,
      timeoutMs: env.inputDownloadTimeoutMs,
      addressPolicy: env.allowPrivateInputUrls ? allowAllAddresses : isPublicAddress,
      signal,
      userAgent: 'Keyframe/0.1 (+https://github.com/keyframe-video/keyframe)',
    });
    return { ...result, early };
  } catch (error) {
    stopEarly.abort();
    throw error;
  } finally {
    settled = true;
    signal.removeEventListener('abort', onAbort);
  }
};
