import type { GrowingFile } from '../../ingest/growing-file';
import type { MediaProbe } from '../../media/ffprobe';
import { readMovieDurationSeconds, readMp4Layout, type Mp4Layout } from '../../media/mp4-layout';
import { probeMedia } from '../../media/probe-media';
import { primaryVideo } from '../../media/media-summary';
import { quickVideoDecodeCheck, verifyDecodable, type DecodeEnd } from '../../media/verify-decodable';
import { childProcesses } from '../processes/child-processes';

// Time-to-ready must not grow with the input's size, but a download does. An MP4's index (moov)
// describes every sample, so with the index, the start and the end of the file in hand the asset
// can be probed and both decode checks run while the middle is still arriving: the end is
// fetched with range requests, and the index comes either first (faststart) or, fetched before
// the media in front of it, from the tail. Readers go through a URL that blocks on bytes not yet written (partial-source-server.ts),
// so a wrong guess here costs time, never correctness. Anything unusual (another container, no
// size, no range support, an error) returns what could be checked, or null, and the ingest
// inspects the complete file for the rest.

export type EarlyInspection = {
  probe: MediaProbe;
  decodedEnds: Array<'start' | 'end'>;
  /** Milliseconds from the start of the inspection at which each step ended (for the logs). */
  timings: Record<string, number>;
  /** When the inspection started (epoch ms), to place its timings on the ingest's timeline. */
  startedAtEpochMs?: number;
};

// Bytes fetched from the end (besides a trailing index): the last 10 s at the file's average bit
// rate, which holds the last GOP (x264's default is 250 frames, ~8-10 s) and the half second the
// end's check starts from. Reads beyond it just wait. The rate comes from the index's duration;
// without one, 8% of the file (the last 24 s of a 5-minute file) stands in for it.
const TAIL_SECONDS = 10;
const TAIL_FRACTION = 0.08;
const MIN_TAIL_BYTES = 8 * 1024 * 1024;
const MAX_TAIL_BYTES = 64 * 1024 * 1024;
// The index of a moov-last file must be fetched as a whole; more than this is not worth it.
const MAX_TRAILING_INDEX_BYTES = 64 * 1024 * 1024;
const EARLY_PROBE_TIMEOUT_MS = 30_000;
// Media data after the start of the media (or after a leading index) that the probe and the
// start's decode check may read: 0.5 s at up to ~130 Mb/s.
const START_MARGIN_BYTES = 8 * 1024 * 1024;

export const tailBytesFor = (totalBytes: number, durationSeconds: number | null = null) => {
  const estimate = durationSeconds && durationSeconds > 0 ? (totalBytes / durationSeconds) * TAIL_SECONDS : totalBytes * TAIL_FRACTION;
  return Math.round(Math.min(MAX_TAIL_BYTES, Math.max(MIN_TAIL_BYTES, estimate)));
};

// The container-level size and bit rate ffprobe reports come from the file's length; everything
// else comes from the index, which was complete.
export const withCompleteFileSize = (probe: MediaProbe, sizeBytes: number): MediaProbe => ({
  ...probe,
  sizeBytes,
  bitRate: probe.durationSeconds ? Math.round((sizeBytes * 8) / probe.durationSeconds) : probe.bitRate,
});

const isMp4Family = (probe: MediaProbe) => /(^|,)(mov|mp4)(,|$)/.test(probe.formatName);

// Waits until the top-level boxes tell where the index is.
const readLayout = async (file: GrowingFile, signal: AbortSignal): Promise<Mp4Layout> => {
  for (;;) {
    const available = file.contiguousBytes;
    if (available > 0) {
      const layout = await readMp4Layout(file.path, available);
      if (layout.kind !== 'need-more') return layout;
    }
    if (file.isComplete) return { kind: 'not-mp4' };
    await file.waitForBytes(available, signal);
  }
};

export const inspectWhileDownloading = async ({
  file,
  inputUrl,
  fetchTail,
  ffprobePath,
  ffmpegPath,
  signal,
  holdDownload = () => undefined,
  runChecks = (checks) => checks(),
  tailBytes,
}: {
  file: GrowingFile;
  /** Where ffprobe/ffmpeg read the file while it downloads. */
  inputUrl: string;
  /** Fetches bytes [start, end) into the file and records them as readable. */
  fetchTail: (start: number, end: number) => Promise<void>;
  ffprobePath: string;
  ffmpegPath: string;
  signal: AbortSignal;
  /** Asks the main download to pause past `fromByte` until `until` settles: the checks need the CPU more. */
  holdDownload?: (fromByte: number, until: Promise<unknown>) => void;
  /** Runs the CPU-bound part (probe and decode checks), e.g. once a CPU slot is free; the tail is fetched meanwhile. */
  runChecks?: <T>(checks: () => Promise<T>) => Promise<T>;
  /** Media bytes to fetch from the end (default: tailBytesFor the file's size and duration). */
  tailBytes?: number;
}): Promise<EarlyInspection | null> => {
  try {
    const layout = await readLayout(file, signal);
    if (layout.kind !== 'index-first' && layout.kind !== 'index-last') return null;
    if (layout.kind === 'index-last' && (layout.mediaEnd === null || file.totalBytes - layout.mediaEnd > MAX_TRAILING_INDEX_BYTES)) return null;
    return await inspectWithIndex({
      file,
      layout,
      tailBytes,
      inputUrl,
      fetchTail,
      ffprobePath,
      ffmpegPath,
      signal,
      runChecks,
      // Only while the checks run: an inspection waiting for a CPU slot lets its download go on.
      onChecksStarted: (until) => holdDownload((layout.kind === 'index-first' ? layout.indexEnd : 0) + START_MARGIN_BYTES, until),
    });
  } catch {
    return null;
  }
};

// The tail: for a faststart file, its last media bytes (how many follows from the duration in
// the index, already here); for a moov-last one, first its index, which the probe needs and which
// tells the duration, then the media bytes before it. Resolves false when a fetch failed.
const fetchTailOf = async ({
  file,
  layout,
  tailBytes,
  fetchTail,
  mark,
}: {
  file: GrowingFile;
  layout: Extract<Mp4Layout, { kind: 'index-first' | 'index-last' }>;
  tailBytes: number | undefined;
  fetchTail: (start: number, end: number) => Promise<void>;
  mark: <T>(name: string, value: T) => T;
}): Promise<boolean> => {
  const total = file.totalBytes;
  try {
    if (layout.kind === 'index-first') {
      const duration = await readMovieDurationSeconds(file.path, layout.indexStart, layout.indexEnd).catch(() => null);
      await fetchTail(Math.max(layout.indexEnd, total - (tailBytes ?? tailBytesFor(total, duration))), total);
      return mark('tailFetchedMs', true);
    }
    const indexStart = layout.mediaEnd ?? total;
    await fetchTail(indexStart, total);
    mark('indexFetchedMs', 0);
    const duration = await readMovieDurationSeconds(file.path, indexStart, total).catch(() => null);
    const mediaStart = Math.max(file.contiguousBytes, indexStart - (tailBytes ?? tailBytesFor(total, duration)));
    if (mediaStart < indexStart) await fetchTail(mediaStart, indexStart);
    return mark('tailFetchedMs', true);
  } catch {
    return mark('tailFailedMs', false);
  }
};

// Throws on errors; inspectWhileDownloading turns them into null.
const inspectWithIndex = async ({
  file,
  layout,
  tailBytes,
  inputUrl,
  fetchTail,
  ffprobePath,
  ffmpegPath,
  signal,
  runChecks,
  onChecksStarted,
}: {
  file: GrowingFile;
  layout: Extract<Mp4Layout, { kind: 'index-first' | 'index-last' }>;
  tailBytes: number | undefined;
  inputUrl: string;
  fetchTail: (start: number, end: number) => Promise<void>;
  ffprobePath: string;
  ffmpegPath: string;
  signal: AbortSignal;
  runChecks: <T>(checks: () => Promise<T>) => Promise<T>;
  onChecksStarted: (until: Promise<unknown>) => void;
}): Promise<EarlyInspection | null> => {
  const startedAt = performance.now();
  const startedAtEpochMs = Date.now();
  const timings: Record<string, number> = {};
  const mark = <T>(name: string, value: T): T => {
    timings[name] = Math.round(performance.now() - startedAt);
    return value;
  };
  // Stops whatever still runs when the inspection is over (or the ingest is aborted): the
  // processes below read through inputUrl and may be waiting for bytes that no longer matter.
  const done = new AbortController();
  const onAbort = () => done.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  // The end's reader also stops when the tail does not come (its bytes would only come with the
  // download, and the main download is held meanwhile).
  const tailLost = new AbortController();
  const stopTailReader = () => tailLost.abort(done.signal.reason);
  done.signal.addEventListener('abort', stopTailReader, { once: true });
  try {
    // Fetching the tail only pays when the main download is far from it.
    const tailEstimate = tailBytes ?? tailBytesFor(file.totalBytes);
    const fetchingTail = (layout.kind === 'index-first' ? file.totalBytes : (layout.mediaEnd ?? 0)) - tailEstimate > file.contiguousBytes + tailEstimate;
    // Without the tail, a moov-last file has nothing to probe until the download is over.
    if (layout.kind === 'index-last' && !fetchingTail) return null;
    const tailFetched = fetchingTail
      ? fetchTailOf({ file, layout, tailBytes, fetchTail, mark }).then((fetched) => {
          if (!fetched) stopTailReader();
          return fetched;
        })
      : Promise.resolve(false);

    const checks = async (): Promise<EarlyInspection | null> => {
      mark('cpuSlotMs', 0);
      // The probe and a keyframe check of each end start at once, not one after the other: a
      // process takes ~50 ms to start before it reads anything, and each then waits only for the
      // bytes it needs (the end's and a moov-last index come with the tail). The checks assume a
      // video stream and find the end from the container's duration, so the probe's answer comes
      // in only to confirm them.
      const quick = (end: DecodeEnd, stop: AbortSignal) =>
        quickVideoDecodeCheck({ ffmpegPath, inputPath: inputUrl, end, signal: stop, children: childProcesses() }).then(
          (clean) => mark(`${end}QuickMs`, clean),
          () => false,
        );
      const startQuick = quick('start', done.signal);
      const endQuick = fetchingTail ? quick('end', tailLost.signal) : Promise.resolve(false);
      const probing = probeMedia({ ffprobePath, inputPath: inputUrl, signal: done.signal, timeoutMs: EARLY_PROBE_TIMEOUT_MS, children: childProcesses() });
      probing.catch(() => undefined);
      if (layout.kind === 'index-last' && !(await tailFetched)) return null;

      const probe = mark('probedMs', await probing);
      if (!isMp4Family(probe)) return null;
      // Audio only (or a quick check that was not clean): the full check of that end decides.
      const hasVideo = primaryVideo(probe) !== null;
      const decoded = async (end: DecodeEnd, quickCheck: Promise<boolean>) => {
        if (hasVideo && (await quickCheck)) return mark(`${end}DecodedMs`, true);
        return verifyDecodable({ ffmpegPath, inputPath: inputUrl, probe, signal: done.signal, ends: [end], quick: false, children: childProcesses() }).then(
          () => mark(`${end}DecodedMs`, true),
          () => mark(`${end}FailedMs`, false),
        );
      };
      const [startDecoded, endDecoded] = await Promise.all([
        decoded('start', startQuick),
        tailFetched.then((fetched) => fetched && decoded('end', endQuick)),
      ]);
      if (!startDecoded) return { probe, decodedEnds: [], timings, startedAtEpochMs };
      return { probe, decodedEnds: endDecoded ? ['start', 'end'] : ['start'], timings, startedAtEpochMs };
    };
    return await runChecks(async () => {
      const checking = checks();
      onChecksStarted(checking.catch(() => undefined));
      try {
        return await checking;
      } finally {
        // Nothing of this inspection keeps a core once its slot is given back.
        done.abort();
      }
    });
  } finally {
    signal.removeEventListener('abort', onAbort);
    done.abort();
  }
};
