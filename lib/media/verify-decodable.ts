import type { MediaProbe } from './ffprobe';
import { abortError, MediaInputError, summariseToolError } from './media-errors';
import { primaryAudio, primaryVideo } from './media-summary';
import type { ChildProcessSet } from './child-process-set';
import { runProcess } from './run-process';

export type DecodeStreams = 'video' | 'audio';

export type DecodeCheckArgsOptions = {
  inputPath: string;
  startSeconds: number;
  durationSeconds: number;
  streams: DecodeStreams;
};

export type VerifyDecodableOptions = {
  ffmpegPath: string;
  inputPath: string;
  probe: MediaProbe;
  signal?: AbortSignal;
  children: ChildProcessSet;
  /** Per window. */
  timeoutMs?: number;
  /** Which ends to decode (default both): the start can be checked while the rest downloads. */
  ends?: Array<'start' | 'end'>;
  /** Try the keyframe-only check first (default true); false when it already failed. */
  quick?: boolean;
};

export type DecodeEnd = 'start' | 'end';

const WINDOW_SECONDS = 0.5;
const DEFAULT_WINDOW_TIMEOUT_MS = 60_000;

// Demuxer message for sample offsets beyond the end of the file: the header survived truncation.
const TRUNCATION_MARKER = 'partial file';

export function buildDecodeCheckArgs(options: DecodeCheckArgsOptions): string[] {
  const { inputPath, startSeconds, durationSeconds, streams } = options;
  return [
    '-hide_banner',
    '-nostdin',
    '-v', 'error',
    // Input-side -ss/-t seek and stop reading, so the cost does not grow with the file's length.
    '-ss', Math.max(0, startSeconds).toFixed(3),
    '-t', durationSeconds.toFixed(3),
    '-i', inputPath,
    '-map', streams === 'video' ? '0:v:0' : '0:a:0',
    '-f', 'null',
    '-progress', 'pipe:1',
    '-nostats',
    '-',
  ];
}

/**
 * The quick check of one end of the first video stream: only its keyframe there is decoded, but
 * every packet to the end of the window is read, so a file whose data stops short still shows
 * ("partial file"). Needs nothing from a probe: the end is found from the container's duration
 * (-sseof), and the stream parameters from its header (no find_stream_info, which would decode
 * the first frame once more, and costs as much as the check itself on a dense 1080p keyframe).
 */
export function buildQuickDecodeCheckArgs({ inputPath, end }: { inputPath: string; end: DecodeEnd }): string[] {
  return [
    '-hide_banner',
    '-nostdin',
    '-v', 'error',
    '-nofind_stream_info',
    // One frame to decode: frame threads would only be started and stopped.
    '-threads', '1',
    '-skip_frame', 'nokey',
    // The same window as the full check: the last keyframe before the end's half second, read
    // through to the end (+0.5 s of slack); timestamps stay relative to the seek point.
    ...(end === 'start' ? ['-t', WINDOW_SECONDS.toFixed(3)] : ['-noaccurate_seek', '-sseof', (-WINDOW_SECONDS).toFixed(3), '-t', (WINDOW_SECONDS * 2).toFixed(3)]),
    '-i', inputPath,
    '-map', '0:v:0',
    // At the start, one keyframe is the whole check: without this, the window would only be known
    // to be over at the next keyframe (up to a GOP later, maybe bytes still downloading). The end
    // is read to the end of the file instead, where a cut shows.
    ...(end === 'start' ? ['-frames:v', '1'] : []),
    '-f', 'null',
    '-progress', 'pipe:1',
    '-nostats',
    '-',
  ];
}

type DecodeProgress = { frames: number; outTimeMicros: number };

/** -progress prints key=value blocks; the last block holds the totals. */
export function parseDecodeProgress(stdout: string): DecodeProgress {
  let frames = 0;
  let outTimeMicros = 0;
  for (const line of stdout.split(/\r?\n/)) {
    const [key, value] = line.split('=', 2);
    const n = Number(value);
    if (!Number.isFinite(n)) continue;
    if (key === 'frame') frames = n;
    else if (key === 'out_time_us') outTimeMicros = n;
  }
  return { frames, outTimeMicros };
}

type Window = { label: 'start' | 'end'; startSeconds: number; durationSeconds: number };

function decodeWindows(mediaDurationSeconds: number | null): Window[] {
  const windows: Window[] = [{ label: 'start', startSeconds: 0, durationSeconds: WINDOW_SECONDS }];
  if (mediaDurationSeconds !== null && mediaDurationSeconds > WINDOW_SECONDS) {
    // Reading past the end is harmless, and the slack absorbs duration estimates that run short.
    const startSeconds = mediaDurationSeconds - WINDOW_SECONDS;
    windows.push({ label: 'end', startSeconds, durationSeconds: WINDOW_SECONDS * 2 });
  }
  return windows;
}

/**
 * Whether the quick check (buildQuickDecodeCheckArgs) decoded a keyframe at `end` of the first
 * video stream without a single error. False is no verdict: the full check decides (an audio-only
 * file, a stream whose keyframes are not flagged, a warning the full check tolerates).
 */
export async function quickVideoDecodeCheck(options: {
  ffmpegPath: string;
  inputPath: string;
  end: DecodeEnd;
  signal?: AbortSignal;
  timeoutMs?: number;
  children: ChildProcessSet;
}): Promise<boolean> {
  const { ffmpegPath, inputPath, end, signal, children } = options;
  const result = await runProcess({
    command: ffmpegPath,
    args: buildQuickDecodeCheckArgs({ inputPath, end }),
    signal,
    timeoutMs: options.timeoutMs ?? DEFAULT_WINDOW_TIMEOUT_MS,
    children,
  });
  if (result.aborted) throw abortError(signal);
  return result.exitCode === 0 && result.stderr.trim() === '' && parseDecodeProgress(result.stdout).frames > 0;
}

/**
 * Decodes about half a second at the start and at the end of the primary stream. Catches files whose
 * header is intact but whose media data is cut short or garbage, at a cost independent of length.
 * For video, the keyframe at each end is decoded first (quickVideoDecodeCheck) and, when that is
 * clean, is the whole check, at a fifth of the CPU of a dense 1080p half second with B-frames (which
 * must be decoded from the keyframe before it). A cut file fails it as before (the demuxer reads to
 * the end); what it no longer looks at is damage confined to the frames between the keyframe and
 * the end, which the full check only failed on when ffmpeg gave up on 2/3 of them.
 */
export async function verifyDecodable(options: VerifyDecodableOptions): Promise<void> {
  const { ffmpegPath, inputPath, probe, signal, children } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_WINDOW_TIMEOUT_MS;
  const video = primaryVideo(probe);
  const audio = primaryAudio(probe);
  const streams: DecodeStreams = video ? 'video' : 'audio';
  const stream = video ?? audio;
  if (!stream) throw new MediaInputError('The input file contains no playable audio or video track');
  const kind = streams === 'video' ? 'video frames' : 'audio';

  // The windows are independent, so they are decoded side by side to keep time-to-ready short.
  const ends = options.ends ?? ['start', 'end'];
  const windows = decodeWindows(stream.durationSeconds ?? probe.durationSeconds).filter((window) => ends.includes(window.label));
  // A video end is first checked by decoding only its keyframe (a dense 1080p GOP with B-frames
  // costs ~5x more to decode whole); only when that is not clean is the half second decoded, and
  // that decides.
  const quick = options.quick !== false && streams === 'video';
  const results = await Promise.all(
    windows.map(async (window) => {
      if (quick && (await quickVideoDecodeCheck({ ffmpegPath, inputPath, end: window.label, signal, timeoutMs, children }))) return null;
      return runProcess({
        command: ffmpegPath,
        args: buildDecodeCheckArgs({ inputPath, startSeconds: window.startSeconds, durationSeconds: window.durationSeconds, streams }),
        signal,
        timeoutMs,
        children,
      });
    }),
  );
  windows.forEach((window, index) => {
    const result = results[index];
    if (!result) return;
    if (result.aborted) throw abortError(signal);
    if (result.timedOut) throw new Error(`ffmpeg decode check timed out after ${timeoutMs} ms`);
    if (result.exitCode === null) throw new Error(`ffmpeg decode check was killed by ${result.signal ?? 'a signal'}`);

    const detail = summariseToolError(result.stderr, inputPath);
    const suffix = detail ? ` (ffmpeg: ${detail})` : '';
    if (result.exitCode !== 0) {
      throw new MediaInputError(`The input file could not be decoded near its ${window.label}${suffix}`);
    }
    if (result.stderr.includes(TRUNCATION_MARKER)) {
      throw new MediaInputError(`The input file is truncated: its data ends before the ${kind} it declares${suffix}`);
    }
    const progress = parseDecodeProgress(result.stdout);
    const decodedSomething = streams === 'video' ? progress.frames > 0 : progress.outTimeMicros > 0;
    if (!decodedSomething) {
      throw new MediaInputError(
        `The input file appears truncated or corrupt: no ${kind} could be decoded near its ${window.label}${suffix}`,
      );
    }
  });
}
