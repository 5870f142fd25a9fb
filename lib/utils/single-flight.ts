// Concurrent callers asking for the same key share one execution of the work and its outcome
// (success or failure); once it settles the key is free again, so a later call starts afresh.
export class SingleFlight<T> {
  private readonly inFlight = new Map<string, Promise<T>>();

  run(key: string, work: () => Promise<T>): Promise<T> {
    const existing = this.inFlight.get(key);
    if (existing) return existing;
    const started = (async () => work())().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, started);
    return started;
  }

  get size(): number {
    return this.inFlight.size;
  }
}
