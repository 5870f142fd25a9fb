import { open, type FileHandle } from 'node:fs/promises';
import { Writable } from 'node:stream';

// A file write stream that writes at explicit offsets and reports, after each write has landed,
// how many bytes the file holds from its start. The explicit offsets let other writers fill a
// later range of the same file (the tail fetched by a range request) without the two colliding,
// and the report tells readers exactly which prefix is safe to read while the rest arrives.

// 1 MiB of buffering batches network chunks into fewer, larger writes (writev): about half the
// CPU per byte of the 16 KiB default.
const HIGH_WATER_MARK = 1 << 20;

export const writeFully = async (handle: FileHandle, buffers: Buffer[], position: number): Promise<number> => {
  let pending = buffers;
  let offset = position;
  while (pending.length > 0) {
    const { bytesWritten } = await handle.writev(pending, offset);
    offset += bytesWritten;
    // A short write (rare on regular files) continues where it stopped.
    let skip = bytesWritten;
    while (pending.length > 0 && skip >= pending[0]!.length) {
      skip -= pending[0]!.length;
      pending = pending.slice(1);
    }
    if (skip > 0) pending = [pending[0]!.subarray(skip), ...pending.slice(1)];
  }
  return offset - position;
};

export class PositionalFileSink extends Writable {
  private written = 0;
  private closing: Promise<void> | null = null;

  private constructor(
    private readonly handle: FileHandle,
    private readonly onBytesWritten: (bytes: number) => void,
    private readonly holdBeforeWrite: (bytesWritten: number) => Promise<void> | null,
  ) {
    super({ highWaterMark: HIGH_WATER_MARK });
  }

  /**
   * Creates (or truncates) `filePath`. `holdBeforeWrite` may return a promise to wait for before
   * the next write; meanwhile the stream applies backpressure to its source.
   */
  static async create(
    filePath: string,
    onBytesWritten: (bytes: number) => void,
    holdBeforeWrite: (bytesWritten: number) => Promise<void> | null = () => null,
  ): Promise<PositionalFileSink> {
    return new PositionalFileSink(await open(filePath, 'w'), onBytesWritten, holdBeforeWrite);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.append([chunk], callback);
  }

  override _writev(chunks: Array<{ chunk: Buffer }>, callback: (error?: Error | null) => void): void {
    this.append(
      chunks.map(({ chunk }) => chunk),
      callback,
    );
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.handle.sync().then(() => callback(), callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.closeHandle().then(
      () => callback(error),
      (closeError: unknown) => callback(error ?? (closeError as Error)),
    );
  }

  /** Stops writing and resolves once the file is closed. */
  async closeNow(): Promise<void> {
    this.destroy();
    await this.closeHandle();
  }

  private append(buffers: Buffer[], callback: (error?: Error | null) => void): void {
    const hold = this.holdBeforeWrite(this.written) ?? Promise.resolve();
    hold.then(() => writeFully(this.handle, buffers, this.written)).then((bytes) => {
      this.written += bytes;
      this.onBytesWritten(this.written);
      callback();
    }, callback);
  }

  private closeHandle(): Promise<void> {
    this.closing ??= this.handle.close().catch(() => undefined);
    return this.closing;
  }
}
