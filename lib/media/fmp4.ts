// Fragmented MP4 (CMAF) box handling for HLS: ffmpeg writes one fragmented MP4 byte stream per
// rendition, and HLS wants it as an init segment (ftyp+moov) plus one file per fragment
// (moof+mdat). Only the boxes needed for that are parsed; media data is never inspected.

const U32_MAX = 0xffff_ffffn;
const U64_MAX = 0xffff_ffff_ffff_ffffn;
const MAX_SAFE_SIZE = BigInt(Number.MAX_SAFE_INTEGER);

// tfhd flags (ISO/IEC 14496-12 §8.8.7) and trun flags (§8.8.8).
const TFHD_BASE_DATA_OFFSET_PRESENT = 0x00_0001;
const TFHD_DEFAULT_BASE_IS_MOOF = 0x02_0000;
const TRUN_DATA_OFFSET_PRESENT = 0x00_0001;

type BoxHeader = {
  type: string;
  headerSize: number;
  /** Total size including the header; 'to-end' for size 0, which runs to the end of the file. */
  size: number | 'to-end';
  large: boolean;
};

type Box = { type: string; start: number; headerSize: number; end: number; large: boolean };

const toBuffer = (data: Uint8Array): Buffer =>
  Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);

/** Returns undefined when fewer bytes than the header needs are available before `limit`. */
function readHeader(buf: Buffer, at: number, limit: number, topLevel: boolean, reportAt = at): BoxHeader | undefined {
  if (limit - at < 8) return undefined;
  const size32 = buf.readUInt32BE(at);
  const type = buf.toString('latin1', at + 4, at + 8);
  // Top-level types are letters, digits and spaces; checking them is what catches non-MP4 input
  // early instead of trusting a random 32-bit number as a box size.
  if (topLevel && !/^[A-Za-z0-9 ]{4}$/.test(type)) {
    throw new Error(`Not a fragmented MP4: no valid box header at offset ${reportAt} (type bytes 0x${buf.toString('hex', at + 4, at + 8)})`);
  }
  if (size32 === 1) {
    if (limit - at < 16) return undefined;
    const large = buf.readBigUInt64BE(at + 8);
    if (large < 16n) throw new Error(`Invalid MP4: box "${type}" at offset ${reportAt} has 64-bit size ${large}`);
    if (large > MAX_SAFE_SIZE) throw new Error(`Invalid MP4: box "${type}" at offset ${reportAt} is too large (${large} bytes)`);
    return { type, headerSize: 16, size: Number(large), large: true };
  }
  if (size32 === 0) return { type, headerSize: 8, size: 'to-end', large: false };
  if (size32 < 8) throw new Error(`Invalid MP4: box "${type}" at offset ${reportAt} has size ${size32}`);
  return { type, headerSize: 8, size: size32, large: false };
}

function parseBoxes(buf: Buffer, start: number, end: number, where: string): Box[] {
  const boxes: Box[] = [];
  const topLevel = where === 'file';
  let at = start;
  while (at < end) {
    const header = readHeader(buf, at, end, topLevel);
    if (!header) throw new Error(`Invalid MP4: truncated box header at offset ${at} in ${where}`);
    const boxEnd = header.size === 'to-end' ? end : at + header.size;
    if (boxEnd > end) {
      throw new Error(`Invalid MP4: box "${header.type}" at offset ${at} (${header.size} bytes) runs past the end of its ${where} at offset ${end}`);
    }
    boxes.push({ type: header.type, start: at, headerSize: header.headerSize, end: boxEnd, large: header.large });
    at = boxEnd;
  }
  return boxes;
}

const children = (buf: Buffer, box: Box): Box[] => parseBoxes(buf, box.start + box.headerSize, box.end, box.type);

function fullBoxHeader(buf: Buffer, box: Box, minPayload: number): { version: number; flags: number; payload: number } {
  const payload = box.start + box.headerSize;
  if (box.end - payload < 4 + minPayload) throw new Error(`Invalid MP4: "${box.type}" box at offset ${box.start} is too short`);
  return { version: buf[payload] ?? 0, flags: buf.readUIntBE(payload + 1, 3), payload: payload + 4 };
}

function readTfdt(buf: Buffer, box: Box): { version: 0 | 1; flags: number; value: bigint; valueEnd: number } {
  const { version, flags, payload } = fullBoxHeader(buf, box, 4);
  if (version === 0) return { version, flags, value: BigInt(buf.readUInt32BE(payload)), valueEnd: payload + 4 };
  if (version === 1) {
    if (box.end - payload < 8) throw new Error(`Invalid MP4: "tfdt" box at offset ${box.start} is too short`);
    return { version, flags, value: buf.readBigUInt64BE(payload), valueEnd: payload + 8 };
  }
  throw new Error(`Unsupported MP4: "tfdt" box at offset ${box.start} has version ${version}`);
}

function encodeBox(type: string, content: Buffer, forceLarge: boolean): { bytes: Buffer; headerSize: number } {
  const large = forceLarge || content.length + 8 > 0xffff_ffff;
  const headerSize = large ? 16 : 8;
  const bytes = Buffer.alloc(headerSize + content.length);
  if (large) {
    bytes.writeUInt32BE(1, 0);
    bytes.writeBigUInt64BE(BigInt(bytes.length), 8);
  } else {
    bytes.writeUInt32BE(bytes.length, 0);
  }
  bytes.write(type, 4, 4, 'latin1');
  content.copy(bytes, headerSize);
  return { bytes, headerSize };
}

// ---------------------------------------------------------------------------------------------
// Splitting

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

// ---------------------------------------------------------------------------------------------
// Decode times

/** The baseMediaDecodeTime of every track fragment, in file order. */
export function readDecodeTimes(fragment: Uint8Array): bigint[] {
  const buf = toBuffer(fragment);
  const times: bigint[] = [];
  for (const moof of parseBoxes(buf, 0, buf.length, 'file')) {
    if (moof.type !== 'moof') continue;
    for (const traf of children(buf, moof)) {
      if (traf.type !== 'traf') continue;
      for (const box of children(buf, traf)) if (box.type === 'tfdt') times.push(readTfdt(buf, box).value);
    }
  }
  return times;
}

/** The media timescale (ticks per second) of the first track, from moov/trak/mdia/mdhd. */
export function readTrackTimescale(init: Uint8Array): number {
  const buf = toBuffer(init);
  const find = (boxes: Box[], type: string, where: string): Box => {
    const box = boxes.find((candidate) => candidate.type === type);
    if (!box) throw new Error(`Invalid MP4 init segment: no ${type} box in ${where}`);
    return box;
  };
  const moov = find(parseBoxes(buf, 0, buf.length, 'file'), 'moov', 'the file');
  const trak = find(children(buf, moov), 'trak', 'moov');
  const mdia = find(children(buf, trak), 'mdia', 'trak');
  const mdhd = find(children(buf, mdia), 'mdhd', 'mdia');
  const { version, payload } = fullBoxHeader(buf, mdhd, 0);
  if (version !== 0 && version !== 1) throw new Error(`Unsupported MP4: mdhd version ${version}`);
  // Creation and modification times precede the timescale: 32-bit in v0, 64-bit in v1.
  const at = payload + (version === 1 ? 16 : 8);
  if (at + 4 > mdhd.end) throw new Error('Invalid MP4 init segment: mdhd box is too short');
  const timescale = buf.readUInt32BE(at);
  if (timescale === 0) throw new Error('Invalid MP4 init segment: mdhd timescale is 0');
  return timescale;
}

type RebuiltTraf = {
  bytes: Buffer;
  /** Offsets (within `bytes`) of trun data_offset fields measured from the moof start. */
  dataOffsetFields: number[];
  absoluteBase: boolean;
  hasSaio: boolean;
};

function rebuildTfdt(buf: Buffer, box: Box, offsetTicks: bigint): Buffer {
  const { version, flags, value, valueEnd } = readTfdt(buf, box);
  const shifted = value + offsetTicks;
  if (shifted < 0n) throw new RangeError(`Shifting decode time ${value} by ${offsetTicks} ticks makes it negative`);
  if (shifted > U64_MAX) throw new RangeError(`Shifting decode time ${value} by ${offsetTicks} ticks overflows 64 bits`);
  // Keeping version 0 when the value still fits leaves box sizes, and so every offset, untouched.
  const newVersion = version === 0 && shifted <= U32_MAX ? 0 : 1;
  const trailing = buf.subarray(valueEnd, box.end);
  const content = Buffer.alloc(4 + (newVersion === 1 ? 8 : 4) + trailing.length);
  content.writeUInt8(newVersion, 0);
  content.writeUIntBE(flags, 1, 3);
  if (newVersion === 1) content.writeBigUInt64BE(shifted, 4);
  else content.writeUInt32BE(Number(shifted), 4);
  trailing.copy(content, content.length - trailing.length);
  return encodeBox('tfdt', content, box.large).bytes;
}

function rebuildTraf(buf: Buffer, traf: Box, isFirstTraf: boolean, offsetTicks: bigint): RebuiltTraf {
  const boxes = children(buf, traf);
  const tfhd = boxes.find((box) => box.type === 'tfhd');
  if (!tfhd) throw new Error(`Invalid MP4: traf at offset ${traf.start} has no tfhd`);
  const tfhdFlags = fullBoxHeader(buf, tfhd, 4).flags;
  const absoluteBase = (tfhdFlags & TFHD_BASE_DATA_OFFSET_PRESENT) !== 0;
  // Without default-base-is-moof, later trafs are based on the end of the previous traf's data,
  // which moves together with the mdat, so only moof-relative offsets need fixing.
  const moofRelative = !absoluteBase && ((tfhdFlags & TFHD_DEFAULT_BASE_IS_MOOF) !== 0 || isFirstTraf);

  const parts: Buffer[] = [];
  const fieldsInContent: number[] = [];
  let position = 0;
  let hasSaio = false;
  for (const box of boxes) {
    let bytes = buf.subarray(box.start, box.end);
    if (box.type === 'tfdt') {
      bytes = rebuildTfdt(buf, box, offsetTicks);
    } else if (box.type === 'trun') {
      const { flags, payload } = fullBoxHeader(buf, box, 4);
      if (moofRelative && (flags & TRUN_DATA_OFFSET_PRESENT) !== 0) {
        if (payload + 8 > box.end) throw new Error(`Invalid MP4: trun at offset ${box.start} is too short`);
        // data_offset follows sample_count.
        fieldsInContent.push(position + (payload - box.start) + 4);
      }
    } else if (box.type === 'saio') {
      hasSaio = true;
    }
    parts.push(bytes);
    position += bytes.length;
  }
  const { bytes, headerSize } = encodeBox('traf', Buffer.concat(parts), traf.large);
  return { bytes, dataOffsetFields: fieldsInContent.map((field) => field + headerSize), absoluteBase, hasSaio };
}

function rebuildMoof(buf: Buffer, moof: Box, offsetTicks: bigint): Buffer {
  const parts: Buffer[] = [];
  const fieldsInContent: number[] = [];
  let position = 0;
  let trafCount = 0;
  let absoluteBase = false;
  let hasSaio = false;
  for (const box of children(buf, moof)) {
    if (box.type === 'traf') {
      const traf = rebuildTraf(buf, box, trafCount++ === 0, offsetTicks);
      fieldsInContent.push(...traf.dataOffsetFields.map((field) => field + position));
      absoluteBase ||= traf.absoluteBase;
      hasSaio ||= traf.hasSaio;
      parts.push(traf.bytes);
      position += traf.bytes.length;
    } else {
      const bytes = buf.subarray(box.start, box.end);
      parts.push(bytes);
      position += bytes.length;
    }
  }
  const { bytes, headerSize } = encodeBox('moof', Buffer.concat(parts), moof.large);
  const growth = bytes.length - (moof.end - moof.start);
  if (growth !== 0) {
    if (absoluteBase) throw new Error('Unsupported MP4: cannot resize a moof whose tfhd has an absolute base_data_offset');
    if (hasSaio) throw new Error('Unsupported MP4: cannot resize a moof with saio auxiliary-information offsets');
    // The mdat sits right after the moof, so its samples move by exactly the moof's growth.
    for (const field of fieldsInContent) {
      const at = field + headerSize;
      bytes.writeInt32BE(bytes.readInt32BE(at) + growth, at);
    }
  }
  return bytes;
}

/**
 * Returns a copy of `fragment` with every track fragment's baseMediaDecodeTime moved by
 * `offsetTicks` (in the track's timescale). A 32-bit (version 0) tfdt that can no longer hold its
 * value becomes 64-bit, and the enclosing box sizes and trun data offsets are adjusted to match.
 */
export function shiftDecodeTime(fragment: Uint8Array, offsetTicks: bigint): Buffer {
  const buf = toBuffer(fragment);
  const boxes = parseBoxes(buf, 0, buf.length, 'file');
  const parts: Buffer[] = [];
  let growth = 0;
  for (const box of boxes) {
    if (box.type === 'moof') {
      const moof = rebuildMoof(buf, box, offsetTicks);
      growth += moof.length - (box.end - box.start);
      parts.push(moof);
    } else {
      parts.push(buf.subarray(box.start, box.end));
    }
  }
  if (growth !== 0 && boxes.some((box) => box.type === 'sidx')) {
    throw new Error('Unsupported MP4: cannot resize a fragment that carries a sidx index');
  }
  return Buffer.concat(parts);
}

// ---------------------------------------------------------------------------------------------
// Box access for the other parsers of this byte format (lib/media/live reads sample tables and
// codec configuration through these, so size checks and error wording stay in one place).

export {
  type Box as Mp4Box,
  parseBoxes as readBoxes,
  children as readChildBoxes,
  fullBoxHeader as readFullBoxHeader,
  readTfdt,
  toBuffer as asBuffer,
};
