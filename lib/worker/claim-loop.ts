// Keeps up to `concurrency` units of work running by claiming the next one whenever a slot frees
// up, when woken (something was queued) and on a poll (work that came due by time, or a wake-up
// that fired before its transaction committed). The job worker and the webhook dispatcher both
// run on it; what a unit is, how it is claimed and run, is theirs.

export type ClaimLoop<T> = {
  running: () => T[];
  // Stops claiming, lets `beforeWait` interrupt what runs, and waits up to `graceMs` for it.
  stop: (graceMs: number, beforeWait?: (running: T[]) => void) => Promise<void>;
};

export const startClaimLoop = <T>({
  concurrency,
  claim,
  run,
  subscribe,
  pollIntervalMs,
  onClaimError,
  onRunError,
}: {
  concurrency: number;
  // Receives what is running now (e.g. to spread work across endpoints); null when nothing is due.
  claim: (running: T[]) => Promise<T | null>;
  run: (unit: T) => Promise<void>;
  subscribe: (wake: () => void) => () => void;
  pollIntervalMs: number;
  onClaimError: (error: unknown) => void;
  onRunError: (error: unknown, unit: T) => void;
}): ClaimLoop<T> => {
  const running = new Map<T, Promise<void>>();
  let stopping = false;
  let filling = false;
  let refillRequested = false;

  const fill = async () => {
    if (filling) {
      refillRequested = true;
      return;
    }
    filling = true;
    try {
      do {
        refillRequested = false;
        while (!stopping && running.size < concurrency) {
          const unit = await claim([...running.keys()]);
          if (unit === null) break;
          const done = run(unit)
            .catch((error: unknown) => onRunError(error, unit))
            .finally(() => {
              running.delete(unit);
              void fill();
            });
          running.set(unit, done);
        }
      } while (refillRequested && !stopping);
    } catch (error) {
      onClaimError(error);
    } finally {
      filling = false;
    }
  };

  const unsubscribe = subscribe(() => void fill());
  const poll = setInterval(() => void fill(), pollIntervalMs);
  void fill();

  return {
    running: () => [...running.keys()],
    stop: async (graceMs, beforeWait) => {
      stopping = true;
      unsubscribe();
      clearInterval(poll);
      beforeWait?.([...running.keys()]);
      const all = Promise.all(running.values());
      await Promise.race([all, new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
    },
  };
};
