// A process-wide cap on concurrent heavy work (an ingest's probe and decode checks): waiters are
// ordered by priority rather than arrival, FIFO within one. Nothing stops a steady stream of urgent
// work from starving lower priorities; callers pick priorities with that in mind.

type Waiter = {
  priority: number;
  start: () => void;
};

export class PrioritySemaphore {
  private running = 0;
  // Kept sorted by priority, FIFO within a priority. Queues are short (bounded by concurrent
  // requests), so a sorted array beats a heap on simplicity without costing anything real.
  private readonly waiting: Waiter[] = [];

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`PrioritySemaphore: limit must be a positive integer, got ${limit}`);
  }

  /**
   * Runs `task` once a slot is free; lower `priority` numbers go first. Aborting `signal` only
   * matters while the task waits (it then rejects with the signal's reason and never starts); a
   * running task gets the signal from its caller if it should stop.
   */
  run<T>(priority: number, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (Number.isNaN(priority)) return Promise.reject(new RangeError('PrioritySemaphore: priority is NaN'));
    if (signal?.aborted) return Promise.reject(signal.reason);

    if (this.running < this.limit && this.waiting.length === 0) return this.execute(task);

    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        const index = this.waiting.indexOf(waiter);
        if (index !== -1) this.waiting.splice(index, 1);
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        priority,
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          this.execute(task).then(resolve, reject);
        },
      };
      this.enqueue(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Tasks waiting for a slot. */
  pending(): number {
    return this.waiting.length;
  }

  /** Tasks holding a slot. */
  active(): number {
    return this.running;
  }

  private enqueue(waiter: Waiter): void {
    // After the last waiter of the same or a more urgent priority: FIFO within a priority.
    let low = 0;
    let high = this.waiting.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.waiting[mid]?.priority ?? 0) <= waiter.priority) low = mid + 1;
      else high = mid;
    }
    this.waiting.splice(low, 0, waiter);
  }

  private execute<T>(task: () => Promise<T>): Promise<T> {
    this.running++;
    let result: Promise<T>;
    try {
      result = Promise.resolve(task());
    } catch (error) {
      // A task that throws before returning its promise must release the slot all the same.
      result = Promise.reject(error);
    }
    return result.finally(() => {
      this.running--;
      this.waiting.shift()?.start();
    });
  }
}
