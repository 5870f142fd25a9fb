// Runs async critical sections one at a time per key (e.g. one upload's bytes), in arrival order,
// while different keys proceed in parallel. Keys disappear when nothing holds or waits for them.
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, critical: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const current = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => current);
    this.tails.set(key, tail);
    await previous;
    try {
      return await critical();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  get heldKeys(): number {
    return this.tails.size;
  }
}
