// Fragmented MP4 (CMAF) box handling for HLS: ffmpeg writes one fragmented MP4 byte stream per
// rendition, and HLS wants it as an init segment (ftyp+moov) plus one file per fragment
// (moof+mdat). Only the boxes needed for that are parsed; media data is never inspected.
import { toBuffer, readHeader, type BoxHeader } from './fmp4-boxes';

export type Fmp4StreamHandlers = {
  onInit(init: Buffer): void;
  onFragment(fragment: Buffer, index: number): void;
};

type PendingBox = BoxHeader & { start: number };

/**
 * Splits a live fragmented-MP4 byte stream (ffmpeg's stdout) into the init segment and fragments,
 * handing each out as soon as its last byte arrives. Boxes other than ftyp, moov, moof and mdat
 * (mfra, sidx, free, styp, …) are dropped without being buffered. Any error leaves the splitter
 * unusable: every later call rethrows it.
 */
export class Fmp4StreamSplitter {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Stream offset of the first buffered byte; only for error messages. */
  private offset = 0;
  private current: PendingBox | null = null;
  private skipRemaining = 0;
  private skipping: PendingBox | null = null;
  private ftyp: Buffer | null = null;
  private initEmitted = false;
  private moof: { bytes: Buffer; start: number } | null = null;
  private fragmentCount = 0;
  private failure: unknown = null;
  private ended = false;

  constructor(private readonly handlers: Fmp4StreamHandlers) {}

  push(chunk: Uint8Array): void {
    this.guard();
    if (this.ended) throw new Error('Fmp4StreamSplitter: push() after end()');
    if (chunk.length === 0) return;
    try {
      this.chunks.push(toBuffer(chunk));
      this.buffered += chunk.length;
      this.drain();
    } catch (error) {
      this.failure = error;
      throw error;
    }
  }

  end(): void {
    this.guard();
    if (this.ended) return;
    this.ended = true;
    try {
      this.finish();
    } catch (error) {
      this.failure = error;
      throw error;
    }
  }

  private guard(): void {
    if (this.failure !== null) throw this.failure;
  }

  private finish(): void {
    if (this.skipRemaining === Infinity) {
      this.consumeFront(this.buffered);
      this.skipRemaining = 0;
    }
    const current = this.current;
    if (current?.size === 'to-end') {
      this.current = null;
      this.accept(current, this.take(this.buffered));
    }
    if (this.skipRemaining > 0) {
      const box = this.skipping;
      throw new Error(`Truncated MP4: stream ended ${this.skipRemaining} bytes short of the end of the "${box?.type}" box at offset ${box?.start}`);
    }
    if (this.current) {
      throw new Error(
        `Truncated MP4: stream ended inside the "${this.current.type}" box at offset ${this.current.start} (${this.buffered} of ${String(this.current.size)} bytes)`,
      );
    }
    if (this.buffered > 0) throw new Error(`Truncated MP4: stream ended inside a box header at offset ${this.offset}`);
    if (this.moof) throw new Error(`Invalid fragmented MP4: moof at offset ${this.moof.start} has no following mdat`);
    if (!this.initEmitted) throw new Error(`Invalid fragmented MP4: missing ${this.ftyp ? 'moov' : 'ftyp'} box`);
  }

  private drain(): void {
    for (;;) {
      if (this.skipRemaining > 0) {
        const n = Math.min(this.skipRemaining, this.buffered);
        this.consumeFront(n);
        this.skipRemaining -= n;
        if (this.skipRemaining > 0) return;
      }
      if (!this.current) {
        const header = this.peekHeader();
        if (!header) return;
        this.checkOrder(header);
        if (!isStructural(header.type)) {
          this.skipRemaining = header.size === 'to-end' ? Infinity : header.size;
          this.skipping = header;
          continue;
        }
        this.current = header;
      }
      const size = this.current.size;
      if (size === 'to-end' || this.buffered < size) return;
      const box = this.current;
      this.current = null;
      this.accept(box, this.take(size));
    }
  }

  /** Ordering problems are reported at the header so that a bad stream never buffers a whole box. */
  private checkOrder(header: PendingBox): void {
    const at = `at offset ${header.start}`;
    if (this.moof && header.type !== 'mdat') {
      // The moof's data offsets are relative to its own start, so anything between it and its mdat
      // could not be dropped without breaking them.
      throw new Error(`Invalid fragmented MP4: moof at offset ${this.moof.start} is followed by "${header.type}" instead of mdat`);
    }
    switch (header.type) {
      case 'ftyp':
        if (this.ftyp || this.initEmitted) throw new Error(`Invalid fragmented MP4: second ftyp box ${at}`);
        break;
      case 'moov':
        if (this.initEmitted) throw new Error(`Invalid fragmented MP4: second moov box ${at}`);
        if (!this.ftyp) throw new Error(`Invalid fragmented MP4: moov box ${at} without a preceding ftyp`);
        break;
      case 'moof':
        if (!this.initEmitted) throw new Error(`Invalid fragmented MP4: moof box ${at} before the init segment (ftyp+moov)`);
        break;
      case 'mdat':
        if (!this.moof) throw new Error(`Invalid fragmented MP4: mdat box ${at} outside a fragment (not a fragmented MP4?)`);
        break;
      default:
        if (!this.initEmitted && !SKIPPABLE_BEFORE_INIT.has(header.type)) {
          throw new Error(`Not a fragmented MP4: unexpected "${header.type}" box ${at} before the init segment (ftyp+moov)`);
        }
    }
  }

  private accept(box: PendingBox, bytes: Buffer): void {
    switch (box.type) {
      case 'ftyp':
        this.ftyp = bytes;
        return;
      case 'moov': {
        const init = Buffer.concat([this.ftyp ?? Buffer.alloc(0), bytes]);
        this.ftyp = null;
        this.initEmitted = true;
        this.handlers.onInit(init);
        return;
      }
      case 'moof':
        this.moof = { bytes, start: box.start };
        return;
      case 'mdat': {
        const fragment = Buffer.concat([this.moof?.bytes ?? Buffer.alloc(0), bytes]);
        this.moof = null;
        this.handlers.onFragment(fragment, this.fragmentCount++);
        return;
      }
    }
  }

  private peekHeader(): PendingBox | undefined {
    if (this.buffered < 8) return undefined;
    const first = this.chunks[0];
    const head = first && first.length >= 16 ? first : this.copyFront(Math.min(16, this.buffered));
    const header = readHeader(head, 0, head.length, true, this.offset);
    return header && { ...header, start: this.offset };
  }

  private copyFront(n: number): Buffer {
    const out = Buffer.alloc(n);
    let filled = 0;
    for (const chunk of this.chunks) {
      if (filled >= n) break;
      filled += chunk.copy(out, filled, 0, Math.min(chunk.length, n - filled));
    }
    return out;
  }

  /** Removes `n` buffered bytes, returning them (a view when they sit in one chunk). */
  private take(n: number): Buffer {
    const first = this.chunks[0];
    const result = first && first.length >= n ? first.subarray(0, n) : this.copyFront(n);
    this.consumeFront(n);
    return result;
  }

  private consumeFront(n: number): void {
    let remaining = n;
    let whole = 0;
    // Splicing once keeps 1-byte chunk feeds linear instead of shifting the array per chunk.
    while (remaining > 0) {
      const chunk = this.chunks[whole];
      if (!chunk) break;
      if (chunk.length > remaining) {
        this.chunks[whole] = chunk.subarray(remaining);
        remaining = 0;
        break;
      }
      remaining -= chunk.length;
      whole++;
    }
    if (whole > 0) this.chunks.splice(0, whole);
    this.buffered -= n;
    this.offset += n;
  }
}

const isStructural = (type: string): boolean => type === 'ftyp' || type === 'moov' || type === 'moof' || type === 'mdat';

// Before the init segment only these may precede or sit between ftyp and moov; anything else this
// early means the input is not what ffmpeg writes, and trusting its size could mean buffering
// gigabytes before noticing.
const SKIPPABLE_BEFORE_INIT = new Set(['free', 'skip', 'wide', 'styp', 'uuid', 'pdin']);

/**
 * Splits a complete fragmented MP4 into its init segment (ftyp+moov) and fragments (moof+mdat).
 * The returned buffers are copies, independent of `data`.
 */
export function splitFragmentedMp4(data: Uint8Array): { init: Buffer; fragments: Buffer[] } {
  let init: Buffer | undefined;
  const fragments: Buffer[] = [];
  const splitter = new Fmp4StreamSplitter({
    onInit: (bytes) => {
      init = bytes;
    },
    onFragment: (fragment) => {
      fragments.push(fragment);
    },
  });
  splitter.push(data);
  splitter.end();
  // end() throws when there is no init segment, so this only satisfies the type checker.
  if (!init) throw new Error('Invalid fragmented MP4: missing init segment');
  return { init, fragments };
}

/**
 * A sink for a fragmented MP4 as it is written that calls `onInit` with the init segment (a copy)
 * as soon as its last byte arrives, and ignores everything after it. ffmpeg writes the init when
 * its encoder opens, long before the last fragment: whoever needs only the init need not wait for
 * the rest. A stream that is not a fragmented MP4 never calls it (whoever splits the whole output
 * reports that).
 */
export const spotInitSegment = (onInit: (init: Buffer) => void): ((chunk: Uint8Array) => void) => {
  let done = false;
  const splitter = new Fmp4StreamSplitter({
    onInit: (init) => {
      done = true;
      onInit(Buffer.from(init));
    },
    onFragment: () => undefined,
  });
  return (chunk) => {
    if (done) return;
    try {
      splitter.push(chunk);
    } catch {
      done = true;
    }
  };
};
