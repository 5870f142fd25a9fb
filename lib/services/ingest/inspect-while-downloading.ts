import { stat } from 'node:fs/promises';
import type { MediaProbe } from '../../media/ffprobe';
import { readMp4Layout } from '../../media/mp4-layout';
import { probeMedia } from '../../media/probe-media';
import { verifyDecodable } from '../../media/verify-decodable';

// Time-to-ready should not grow with the input's size, but a download does. For an MP4 whose index
// comes first (faststart), the probe and the decode check of the start do not need the rest of the
// file, so they run while it is still arriving; only the end of the file has to wait. Anything
// unusual (another layout or container, an error) returns null and the ingest simply inspects the
// complete file, so this can only save time, never change the outcome.

export type EarlyInspection = { probe: MediaProbe; startDecoded: boolean };

const POLL_MS = 20;
// Media data after the index that the start's decode check may read: 0.5 s at up to ~100 Mb/s.
const START_MARGIN_BYTES = 8 * 1024 * 1024;
const EARLY_PROBE_TIMEOUT_MS = 30_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const sizeOf = async (file: string) => (await stat(file).catch(() => null))?.size ?? 0;

// The container-level size and bit rate ffprobe reports come from the file's length; everything
// else comes from the index, which was complete.
export const withCompleteFileSize = (probe: MediaProbe, sizeBytes: number): MediaProbe => ({
  ...probe,
  sizeBytes,
  bitRate: probe.durationSeconds ? Math.round((sizeBytes * 8) / probe.durationSeconds) : probe.bitRate,
});

const isMp4Family = (probe: MediaProbe) => /(^|,)(mov|mp4)(,|$)/.test(probe.formatName);

export const inspectWhileDownloading = async ({
  partPath,
  downloadFinished,
  ffprobePath,
  ffmpegPath,
  signal,
  startMarginBytes = START_MARGIN_BYTES,
}: {
  partPath: string;
  startMarginBytes?: number;
  downloadFinished: () => boolean;
  ffprobePath: string;
  ffmpegPath: string;
  signal: AbortSignal;
}): Promise<EarlyInspection | null> => {
  try {
    let size = 0;
    for (;;) {
      if (signal.aborted || downloadFinished()) return null;
      size = await sizeOf(partPath);
      if (size > 0) {
        const layout = await readMp4Layout(partPath, size);
        if (layout.kind === 'index-first' && size >= layout.indexEnd + startMarginBytes) break;
        if (layout.kind !== 'need-more' && layout.kind !== 'index-first') return null;
      }
      await sleep(POLL_MS);
    }
    const probe = await probeMedia({ ffprobePath, inputPath: partPath, signal, timeoutMs: EARLY_PROBE_TIMEOUT_MS });
    if (!isMp4Family(probe)) return null;
    const startDecoded = await verifyDecodable({ ffmpegPath, inputPath: partPath, probe, signal, ends: ['start'] }).then(
      () => true,
      () => false,
    );
    return { probe, startDecoded };
  } catch {
    return null;
  }
};
