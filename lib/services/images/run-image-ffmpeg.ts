import { getEnv } from '../../env';
import { ApiError } from '../../errors/api-error';
import { runProcess, TailBuffer } from '../../media/run-process';
import { ENCODE_PRIORITY, encoderSlots, speculativeSlots } from '../playback/runtime';

// Image work shares the process-wide encoder slots with just-in-time video. A thumbnail or an
// animated image is something a viewer is waiting for (on-demand priority). A storyboard is up to
// 100 frame grabs for a hover preview, so it runs like a prefetch: it never takes the slot kept
// free for a viewer's next segment, and segments overtake its queued grabs.

export type ImageWorkLane = 'on-demand' | 'storyboard';

const FFMPEG_TIMEOUT_MS = 5 * 60_000;

export const runImageFfmpeg = async ({
  args,
  signal,
  lane,
  keepLastBytes = Number.POSITIVE_INFINITY,
}: {
  args: string[];
  signal: AbortSignal;
  lane: ImageWorkLane;
  keepLastBytes?: number;
}): Promise<Buffer> => {
  const output = new TailBuffer(keepLastBytes);
  const run = () =>
    runProcess({ command: getEnv().ffmpegPath, args, signal, timeoutMs: FFMPEG_TIMEOUT_MS, onStdout: (chunk) => output.push(chunk) });
  const result =
    lane === 'on-demand'
      ? await encoderSlots().run(ENCODE_PRIORITY.onDemand, run, signal)
      : await speculativeSlots().run(ENCODE_PRIORITY.prefetch, () => encoderSlots().run(ENCODE_PRIORITY.prefetch, run, signal), signal);
  if (result.aborted || signal.aborted) throw new ApiError('not_found', 'Asset not found');
  if (result.exitCode !== 0) {
    const reason = result.timedOut ? 'timed out' : result.signal ? `was killed (${result.signal})` : `exited with ${result.exitCode}`;
    throw new Error(`ffmpeg ${reason} making an image: ${result.stderr.trim().slice(-500)}`);
  }
  return output.bytes();
};
