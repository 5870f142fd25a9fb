// Decode times of fragmented MP4: reading them (tfdt), the track's timescale, and shifting a
// fragment's decode time so segments encoded apart line up on one timeline.
import { U32_MAX, U64_MAX, TFHD_BASE_DATA_OFFSET_PRESENT, TFHD_DEFAULT_BASE_IS_MOOF, TRUN_DATA_OFFSET_PRESENT, toBuffer, parseBoxes, children, fullBoxHeader, readTfdt, encodeBox, type Box } from './fmp4-boxes';

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
