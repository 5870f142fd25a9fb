import { open } from 'node:fs/promises';

// Where an MP4/MOV file keeps its index. When `moov` comes before the media data ("faststart",
// what most encoders and web pipelines produce), the whole sample table is known from the first
// bytes, so the file can be probed and its start decoded while the rest is still downloading.
// When moov comes after the media data, it starts where the first mdat ends, so the index can be
// fetched from the end of the file. Fragmented MP4 (moof) is reported as such.

export type Mp4Layout =
  | { kind: 'index-first'; indexStart: number; indexEnd: number }
  | { kind: 'index-last'; mediaEnd: number | null }
  | { kind: 'fragmented' }
  | { kind: 'not-mp4' }
  | { kind: 'need-more' };

const BOX_HEADER = 16;
const MAX_TOP_LEVEL_BOXES = 64;
const MP4_FIRST_BOXES = new Set(['ftyp', 'styp', 'moov', 'free', 'skip', 'wide', 'pdin', 'uuid', 'mdat']);

export async function readMp4Layout(filePath: string, availableBytes: number): Promise<Mp4Layout> {
  const file = await open(filePath, 'r');
  try {
    const header = Buffer.alloc(BOX_HEADER);
    let offset = 0;
    let indexStart = 0;
    let indexEnd: number | undefined;
    for (let index = 0; index < MAX_TOP_LEVEL_BOXES; index++) {
      if (offset + 8 > availableBytes) return { kind: 'need-more' };
      const { bytesRead } = await file.read(header, 0, BOX_HEADER, offset);
      if (bytesRead < 8) return { kind: 'need-more' };
      const type = header.toString('latin1', 4, 8);
      if (index === 0 && !MP4_FIRST_BOXES.has(type)) return { kind: 'not-mp4' };
      let size = header.readUInt32BE(0);
      if (size === 1) {
        if (bytesRead < 16) return { kind: 'need-more' };
        size = Number(header.readBigUInt64BE(8));
      }
      // An empty moov followed by fragments is fragmented MP4: its index is spread over the file.
      if (type === 'moof') return { kind: 'fragmented' };
      if (type === 'mdat') {
        if (indexEnd !== undefined) return { kind: 'index-first', indexStart, indexEnd };
        // size 0: the media data runs to the end of the file, so there is no index after it.
        return { kind: 'index-last', mediaEnd: size === 0 ? null : offset + size };
      }
      if (type === 'moov') {
        indexStart = offset;
        indexEnd = offset + size;
      }
      // size 0 means "to the end of the file", which only media data does.
      if (size < 8) return { kind: 'not-mp4' };
      offset += size;
    }
    return { kind: 'not-mp4' };
  } finally {
    await file.close();
  }
}

/**
 * The movie's duration from the mvhd box of the moov at [moovStart, moovEnd) (bytes that must be
 * in the file), or null. Tells how many bytes a few seconds of the file take before any probe.
 */
export async function readMovieDurationSeconds(filePath: string, moovStart: number, moovEnd: number): Promise<number | null> {
  const file = await open(filePath, 'r');
  try {
    const buffer = Buffer.alloc(32);
    let offset = moovStart + 8;
    for (let index = 0; index < MAX_TOP_LEVEL_BOXES && offset + 8 <= moovEnd; index++) {
      const { bytesRead } = await file.read(buffer, 0, 32, offset);
      if (bytesRead < 8) return null;
      const size = buffer.readUInt32BE(0);
      if (buffer.toString('latin1', 4, 8) === 'mvhd') {
        if (bytesRead < 32) return null;
        const version = buffer.readUInt8(8);
        // Version 1 has 64-bit creation/modification times and duration.
        const timescale = version === 1 ? buffer.readUInt32BE(28) : buffer.readUInt32BE(20);
        if (version === 1) {
          const { bytesRead: more } = await file.read(buffer, 0, 8, offset + 32);
          if (more < 8) return null;
          const duration = Number(buffer.readBigUInt64BE(0));
          return timescale > 0 && duration > 0 ? duration / timescale : null;
        }
        const duration = buffer.readUInt32BE(24);
        return timescale > 0 && duration > 0 && duration !== 0xffffffff ? duration / timescale : null;
      }
      if (size < 8) return null;
      offset += size;
    }
    return null;
  } finally {
    await file.close();
  }
}
