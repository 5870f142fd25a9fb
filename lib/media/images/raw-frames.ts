import { rgbFrameBytes } from './image-args';
import type { Size } from './thumbnail-geometry';

/** Splits ffmpeg's raw RGB output into whole frames; a trailing partial frame is dropped. */
export const splitRgbFrames = (data: Buffer, size: Size): Buffer[] => {
  const frameBytes = rgbFrameBytes(size);
  const count = Math.floor(data.length / frameBytes);
  return Array.from({ length: count }, (_, index) => data.subarray(index * frameBytes, (index + 1) * frameBytes));
};
