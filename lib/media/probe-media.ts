import { stat } from 'node:fs/promises';
import { buildProbeArgs, parseProbeOutput, type MediaProbe } from './ffprobe';
import { abortError, CORRUPTION_MARKERS, MediaInputError, summariseToolError } from './media-errors';
import { primaryAudio, primaryVideo } from './media-summary';
import type { ChildProcessSet } from './child-process-set';
import { runProcess } from './run-process';

export type ProbeMediaOptions = {
  ffprobePath: string;
  inputPath: string;
  signal?: AbortSignal;
  timeoutMs?: number;
  children: ChildProcessSet;
};

const DEFAULT_PROBE_TIMEOUT_MS = 60_000;

// Demuxers that accept things users upload by mistake: tty turns any .txt into "video".
const TEXT_FORMATS = new Set(['tty']);
const STILL_IMAGE_FORMAT = /(^|,)(image2|[a-z0-9]+_pipe)(,|$)/;
// ffmpeg's AVPROBE_SCORE_RETRY: at or below it the format is only guessed from a few bytes that
// happen to fit (about 1 in 200 files of random bytes "is" a raw H.263 stream that decodes one
// garbage frame). Real files, raw elementary streams included, score 50 or more.
const GUESSED_FORMAT_SCORE = 25;

function unreadable(detail: string | null): MediaInputError {
  const suffix = detail ? ` (ffprobe: ${detail})` : '';
  return new MediaInputError(`The input file could not be read as audio or video${suffix}`);
}

async function assertNonEmptyFile(inputPath: string): Promise<void> {
  const info = await stat(inputPath);
  if (!info.isFile()) throw new MediaInputError('The input is not a regular file');
  if (info.size === 0) throw new MediaInputError('The input file is empty (0 bytes)');
}

function assertUsable(probe: MediaProbe): void {
  if (TEXT_FORMATS.has(probe.formatName)) {
    throw new MediaInputError('The input file looks like a text file, not audio or video');
  }
  if (probe.probeScore !== null && probe.probeScore <= GUESSED_FORMAT_SCORE) {
    throw new MediaInputError('The input file is not in a recognised audio or video format');
  }
  const video = primaryVideo(probe);
  const audio = primaryAudio(probe);
  if (STILL_IMAGE_FORMAT.test(probe.formatName) && !audio) {
    throw new MediaInputError('The input file is a still image, not audio or video');
  }
  const hasVideo = video !== null && video.codedWidth > 0 && video.codedHeight > 0;
  const hasAudio = audio !== null && audio.sampleRate > 0;
  if (!hasVideo && !hasAudio) {
    throw new MediaInputError('The input file contains no playable audio or video track');
  }
}

export async function probeMedia(options: ProbeMediaOptions): Promise<MediaProbe> {
  const { ffprobePath, inputPath, signal, children } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  // A URL is a download still in progress (see partial-source-server.ts): its size is known.
  if (!/^https?:\/\//.test(inputPath)) await assertNonEmptyFile(inputPath);

  const result = await runProcess({ command: ffprobePath, args: buildProbeArgs(inputPath), signal, timeoutMs, children });
  if (result.aborted) throw abortError(signal);
  // Timeouts and kills are about this machine, not the file, so they stay retryable plain Errors.
  if (result.timedOut) throw new Error(`ffprobe timed out after ${timeoutMs} ms`);
  if (result.exitCode === null) throw new Error(`ffprobe was killed by ${result.signal ?? 'a signal'}`);

  const detail = summariseToolError(result.stderr, inputPath);
  if (result.exitCode !== 0) throw unreadable(detail);
  if (CORRUPTION_MARKERS.some((marker) => result.stderr.includes(marker))) throw unreadable(detail);

  let json: unknown;
  try {
    json = JSON.parse(result.stdout);
  } catch (error) {
    throw new Error('ffprobe returned output that is not JSON', { cause: error });
  }
  const probe = parseProbeOutput(json);
  assertUsable(probe);
  return probe;
}
