// What is readable of a file that is still being written: a prefix that grows as the download
// proceeds, plus ranges fetched ahead of it (the end of the file, where an MP4 may keep its index
// and where the last frames are). Everything else is a hole whose bytes read as zeros, so readers
// must ask here first; `waitForBytes` blocks until the byte at a position is really there.

type Range = { start: number; end: number };

export class GrowingFile {
  private prefixEnd = 0;
  private readonly ahead: Range[] = [];
  private failure: Error | null = null;
  private finished = false;
  private readonly waiters = new Set<() => void>();

  constructor(
    /** Where the bytes are written; readers open it themselves. */
    readonly path: string,
    readonly totalBytes: number,
  ) {}

  get isComplete(): boolean {
    return this.finished;
  }

  /** The prefix written so far (only ever grows). */
  get contiguousBytes(): number {
    return this.prefixEnd;
  }

  advancePrefix(bytes: number): void {
    if (bytes <= this.prefixEnd) return;
    this.prefixEnd = Math.min(bytes, this.totalBytes);
    this.wake();
  }

  addRange(start: number, end: number): void {
    this.ahead.push({ start, end: Math.min(end, this.totalBytes) });
    this.wake();
  }

  /** Every byte is written: the file is complete. */
  complete(): void {
    this.finished = true;
    this.prefixEnd = this.totalBytes;
    this.wake();
  }

  /** The bytes that are missing will not come: waiting readers get `error`. */
  fail(error: Error): void {
    this.failure ??= error;
    this.wake();
  }

  /** End (exclusive) of the readable run that contains `position`, or `position` if it is a hole. */
  readableEnd(position: number): number {
    if (position < this.prefixEnd) return this.prefixEnd;
    for (const range of this.ahead) {
      if (position >= range.start && position < range.end) return range.end;
    }
    return position;
  }

  /** Resolves with the end of the readable run containing `position` once there is one. */
  async waitForBytes(position: number, signal?: AbortSignal): Promise<number> {
    if (position >= this.totalBytes) return this.totalBytes;
    for (;;) {
      const end = this.readableEnd(position);
      if (end > position) return end;
      if (this.failure) throw this.failure;
      signal?.throwIfAborted();
      await new Promise<void>((resolve) => {
        const onAbort = () => done();
        const done = () => {
          this.waiters.delete(done);
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        this.waiters.add(done);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    }
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
