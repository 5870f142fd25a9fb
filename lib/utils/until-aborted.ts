/**
 * Settles with `work`, or rejects as soon as `signal` aborts (with its reason). The work itself
 * goes on: this is for callers that stop waiting while the work is shared with others (a job
 * stopped at shutdown leaves the segment encode it joined to the viewers who also wait for it).
 */
export const untilAborted = <T>(work: Promise<T>, signal: AbortSignal): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
