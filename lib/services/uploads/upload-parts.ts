import type { ByteRange } from '../../storage/object-store';

// The parts of a direct upload that nodes share (see shared-upload-parts.ts): each names the bytes
// [first, last] of the file it holds. Parts may overlap (a chunk re-sent to another node).

export type UploadPart = { name: string; first: number; last: number };

const PART_NAME = /^(\d+)-(\d+)$/;

export const parsePartName = (name: string): UploadPart | null => {
  const match = PART_NAME.exec(name);
  if (!match) return null;
  const first = Number(match[1]);
  const last = Number(match[2]);
  return Number.isSafeInteger(first) && Number.isSafeInteger(last) && last >= first ? { name, first, last } : null;
};

/**
 * What to read, in order, from which parts to extend a copy holding `held` bytes as far as the
 * parts reach without a gap. Ranges are within each part's object.
 */
export const partsToAppend = (parts: readonly UploadPart[], held: number): Array<{ name: string; range: ByteRange }> => {
  const pieces: Array<{ name: string; range: ByteRange }> = [];
  let next = held;
  for (;;) {
    // Of the parts that cover the next byte, the one reaching furthest.
    let best: UploadPart | undefined;
    for (const part of parts) {
      if (part.first <= next && part.last >= next && (!best || part.last > best.last)) best = part;
    }
    if (!best) return pieces;
    pieces.push({ name: best.name, range: { start: next - best.first, end: best.last - best.first } });
    next = best.last + 1;
  }
};
