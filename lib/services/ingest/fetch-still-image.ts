import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { getEnv } from '../../env';
import { downloadToFile, isDownloadError, partialDownloadPath } from '../../ingest/download-to-file';
import { allowAllAddresses, isPublicAddress } from '../../ingest/url-policy';
import { buildImageProbeArgs, buildNormaliseImageArgs, checkStillImageProbe, pngSize } from '../../media/overlay/watermark-image';
import { runProcess } from '../../media/run-process';
import { childProcesses } from '../processes/child-processes';

// A still image a request names by URL (a watermark, a live stream's reconnect slate): fetched
// through the same SSRF guard as a video input, checked to be one PNG or JPEG, and decoded once
// into an RGBA PNG, which the caller stores where it belongs.

const USER_AGENT = 'Keyframe/0.1 (+https://github.com/keyframe-video/keyframe)';
const TOOL_TIMEOUT_MS = 30_000;

export type FetchedStillImage =
  | { ok: true; png: Buffer; size: { width: number; height: number } }
  /** `download`: the URL could not be fetched; `invalid`: what came is not a usable image. */
  | { ok: false; problem: 'download' | 'invalid'; message: string };

export const fetchStillImage = async ({
  url,
  workPath,
  subject,
  maxBytes,
  timeoutMs,
  signal,
}: {
  url: string;
  /** Where the download is kept while it is checked (removed after). */
  workPath: string;
  /** The image as messages name it: "the watermark", "the reconnect slate". */
  subject: string;
  maxBytes: number;
  timeoutMs: number;
  signal: AbortSignal;
}): Promise<FetchedStillImage> => {
  const env = getEnv();
  await mkdir(path.dirname(workPath), { recursive: true });
  try {
    try {
      await downloadToFile({
        url,
        destinationPath: workPath,
        maxBytes,
        timeoutMs,
        addressPolicy: env.allowPrivateInputUrls ? allowAllAddresses : isPublicAddress,
        signal,
        userAgent: USER_AGENT,
      });
    } catch (error) {
      // A shutdown or deletion is the caller's to handle; a bad URL is the user's to fix.
      if (signal.aborted || !isDownloadError(error)) throw error;
      return { ok: false, problem: 'download', message: error.message.replace(/^Failed to download input: /, `${subject} could not be downloaded: `) };
    }
    const probe = await runProcess({ command: env.ffprobePath, args: buildImageProbeArgs(workPath), signal, timeoutMs: TOOL_TIMEOUT_MS, children: childProcesses() });
    signal.throwIfAborted();
    const checked = checkStillImageProbe(probe.exitCode === 0 ? probe.stdout : '', subject);
    if (!checked.ok) return { ok: false, problem: 'invalid', message: checked.reason };
    const chunks: Buffer[] = [];
    const normalised = await runProcess({
      command: env.ffmpegPath,
      args: buildNormaliseImageArgs(workPath),
      signal,
      timeoutMs: TOOL_TIMEOUT_MS,
      onStdout: (chunk) => chunks.push(chunk),
      children: childProcesses(),
    });
    signal.throwIfAborted();
    const png = Buffer.concat(chunks);
    const size = pngSize(png);
    if (normalised.exitCode !== 0 || !size) return { ok: false, problem: 'invalid', message: `${subject} image could not be decoded` };
    return { ok: true, png, size };
  } finally {
    await Promise.all([rm(workPath, { force: true }), rm(partialDownloadPath(workPath), { force: true })]);
  }
};
