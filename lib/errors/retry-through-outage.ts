import { setTimeout as sleep } from 'node:timers/promises';
import { unavailableDependencyOf, type UnavailableDependency } from './dependency-unavailable';

/**
 * Runs `work` again while it fails because a dependency is unavailable (the database restarting,
 * the bucket answering 503), every `delayMs`, until `windowMs` has passed; any other error, or the
 * outage outlasting the window, is thrown. For a step that must not be lost to a blip: a result
 * already obtained (a webhook the receiver accepted) waiting to be recorded.
 */
export const retryThroughOutage = async <T>(
  work: () => Promise<T>,
  {
    windowMs,
    delayMs = 1_000,
    only,
    signal,
    onRetry,
  }: { windowMs: number; delayMs?: number; only?: UnavailableDependency[]; signal?: AbortSignal; onRetry?: (error: unknown) => void },
): Promise<T> => {
  const deadline = Date.now() + windowMs;
  for (;;) {
    try {
      return await work();
    } catch (error) {
      const dependency = unavailableDependencyOf(error);
      const retryable = dependency !== null && (!only || only.includes(dependency));
      if (!retryable || Date.now() + delayMs > deadline || signal?.aborted) throw error;
      onRetry?.(error);
      await sleep(delayMs, undefined, { signal }).catch(() => {
        throw error;
      });
    }
  }
};
