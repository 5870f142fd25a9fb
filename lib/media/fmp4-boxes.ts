// The box layer of fragmented MP4 (ISO/IEC 14496-12) that fmp4.ts (splitting),
// fmp4-decode-times.ts and lib/media/live (sample tables, codec configuration) read through, so
// size checks and error wording stay in one place. Media data is never inspected.

export const U32_MAX = 0xffff_ffffn;
export const U64_MAX = 0xffff_ffff_ffff_ffffn;
const MAX_SAFE_SIZE = BigInt(Number.MAX_SAFE_INTEGER);

// tfhd flags (ISO/IEC 14496-12 §8.8.7) and trun flags (§8.8.8).
export const TFHD_BASE_DATA_OFFSET_PRESENT = 0x00_0001;
export const TFHD_DEFAULT_BASE_IS_MOOF = 0x02_0000;
export const TRUN_DATA_OFFSET_PRESENT = 0x00_0001;

export type BoxHeader = {
  type: string;
  headerSize: number;
  /** Total size including the header; 'to-end' for size 0, which runs to the end of the file. */
  size: number | 'to-end';
  large: boolean;
};

export type Box = { type: string; start: number; headerSize: number; end: number; large: boolean };

export const toBuffer = (data: Uint8Array): Buffer =>
  Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);

/** Returns undefined when fewer bytes than the header needs are available before `limit`. */
export function readHeader(buf: Buffer, at: number, limit: number, topLevel: boolean, reportAt = at): BoxHeader | undefined {
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

export function parseBoxes(buf: Buffer, start: number, end: number, where: string): Box[] {
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

export const children = (buf: Buffer, box: Box): Box[] => parseBoxes(buf, box.start + box.headerSize, box.end, box.type);

export function fullBoxHeader(buf: Buffer, box: Box, minPayload: number): { version: number; flags: number; payload: number } {
  const payload = box.start + box.headerSize;
  if (box.end - payload < 4 + minPayload) throw new Error(`Invalid MP4: "${box.type}" box at offset ${box.start} is too short`);
  return { version: buf[payload] ?? 0, flags: buf.readUIntBE(payload + 1, 3), payload: payload + 4 };
}

export function readTfdt(buf: Buffer, box: Box): { version: 0 | 1; flags: number; value: bigint; valueEnd: number } {
  const { version, flags, payload } = fullBoxHeader(buf, box, 4);
  if (version === 0) return { version, flags, value: BigInt(buf.readUInt32BE(payload)), valueEnd: payload + 4 };
  if (version === 1) {
    if (box.end - payload < 8) throw new Error(`Invalid MP4: "tfdt" box at offset ${box.start} is too short`);
    return { version, flags, value: buf.readBigUInt64BE(payload), valueEnd: payload + 8 };
  }
  throw new Error(`Unsupported MP4: "tfdt" box at offset ${box.start} has version ${version}`);
}

export function encodeBox(type: string, content: Buffer, forceLarge: boolean): { bytes: Buffer; headerSize: number } {
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
