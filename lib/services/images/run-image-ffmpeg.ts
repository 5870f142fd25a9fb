import { getEnv } from '../../env';
import { ApiError } from '../../errors/api-error';
import { inputReadFailure } from '../../media/input-read-failure';
import { runProcess, TailBuffer } from '../../media/run-process';
import { childProcesses } from '../processes/child-processes';
import { encoderScheduler } from '../playback/runtime';

// Image work shares the process-wide encoder scheduler with just-in-time video. A thumbnail or an
// animated image is something a viewer is waiting for (deadline work, due now). A storyboard is up
// to 100 frame grabs for a hover preview, so it runs like a prefetch: only on an encoder no viewer
// needs, and a segment someone waits for goes first.

export type ImageWorkLane = 'on-demand' | 'storyboard';

const FFMPEG_TIMEOUT_MS = 5 * 60_000;
// A storyboard is fetched when playback starts and wanted by the first hover, seconds later.
const STORYBOARD_DUE_MS = 10_000;

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
  signal.throwIfAborted();
  const output = new TailBuffer(keepLastBytes);
  const onDemand = lane === 'on-demand';
  const work = encoderScheduler().submit({
    kind: onDemand ? 'onDemand' : 'prefetch',
    workClass: onDemand ? 'deadline' : 'speculative',
    deadline: Date.now() + (onDemand ? 0 : STORYBOARD_DUE_MS),
    label: onDemand ? 'image' : 'storyboard',
    // Never idle work, so never preempted: one attempt, whose output is the image.
    run: (attempt) =>
      runProcess({
        command: getEnv().ffmpegPath,
        args,
        signal: AbortSignal.any([signal, attempt.signal]),
        timeoutMs: FFMPEG_TIMEOUT_MS,
        onStdout: (chunk) => output.push(chunk),
        children: childProcesses(),
      }),
  });
  const onAbort = () => work.cancel(signal.reason instanceof Error ? signal.reason : new Error('the image request went away'));
  signal.addEventListener('abort', onAbort, { once: true });
  let result;
  try {
    result = await work.done;
  } catch (error) {
    if (signal.aborted) throw new ApiError('not_found', 'Asset not found');
    throw error;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  if (result.aborted || signal.aborted) throw new ApiError('not_found', 'Asset not found');
  const unread = inputReadFailure(args, result.stderr);
  if (unread) throw unread;
  if (result.exitCode !== 0) {
    const reason = result.timedOut ? 'timed out' : result.signal ? `was killed (${result.signal})` : `exited with ${result.exitCode}`;
    throw new Error(`ffmpeg ${reason} making an image: ${result.stderr.trim().slice(-500)}`);
  }
  return output.bytes();
};
