/**
 * A problem with the user's media itself (unreadable, truncated, no usable track).
 * Permanent: retrying the same input cannot succeed, so job runners must not retry it
 * and the message is shown to the user as-is.
 */
export class MediaInputError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MediaInputError';
  }
}

export function isMediaInputError(error: unknown): error is MediaInputError {
  return error instanceof MediaInputError;
}

// ffmpeg/ffprobe can exit 0 although these appear; the file will then not play through.
export const CORRUPTION_MARKERS: readonly string[] = [
  'partial file',
  'moov atom not found',
  'Invalid data found when processing input',
];

export function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new DOMException('The operation was aborted', 'AbortError');
}

/**
 * Turns ffmpeg/ffprobe stderr into one line fit for a user: the most relevant error, without the
 * "[mov,mp4 @ 0x...]" context prefix or the server-side file path.
 */
export function summariseToolError(stderr: string, inputPath: string): string | null {
  const lines = stderr
    .split(/\r?\n/)
    .map((line) => line.split(inputPath).join('input').replace(/^\[[^\]]*@ 0x[0-9a-f]+\]\s*/i, '').trim())
    .map((line) => line.replace(/^input:\s*/, ''))
    .filter((line) => line !== '');
  const marked = lines.filter((line) => CORRUPTION_MARKERS.some((marker) => line.includes(marker)));
  return marked[0] ?? lines[lines.length - 1] ?? null;
}
