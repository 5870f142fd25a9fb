import type { Size } from './overlay-layout';

// Checking and normalising a watermark image, as data. Mux accepts PNG and JPEG up to 4096×4096;
// every accepted image is re-encoded once as a PNG with an alpha channel (RGBA), so the encodes
// and image requests read a single format and a JPEG is simply opaque.

export const MAX_WATERMARK_SIDE = 4096;

export const buildImageProbeArgs = (inputPath: string): string[] => [
  '-v',
  'error',
  '-show_entries',
  'stream=codec_type,codec_name,width,height:format=format_name',
  '-of',
  'json',
  inputPath,
];

// Still-image demuxers only: an MJPEG AVI or an animated PNG is a video, not a watermark.
const IMAGE_FORMATS = new Set(['png_pipe', 'jpeg_pipe', 'image2']);
const IMAGE_CODECS = new Set(['png', 'mjpeg']);

type ProbeJson = {
  streams?: { codec_type?: string; codec_name?: string; width?: number; height?: number }[];
  format?: { format_name?: string };
};

/**
 * ffprobe's answer (JSON text; empty when it could not read the file) as a size, or why the image
 * is refused; `subject` names the image in that reason (a watermark, a live stream's slate).
 */
export const checkStillImageProbe = (stdout: string, subject: string): { ok: true; size: Size } | { ok: false; reason: string } => {
  let probe: ProbeJson = {};
  try {
    probe = JSON.parse(stdout || '{}') as ProbeJson;
  } catch {
    // Unreadable output: refused below like any other file that is not an image.
  }
  const [stream, ...others] = probe.streams ?? [];
  const isImage =
    stream?.codec_type === 'video' &&
    others.length === 0 &&
    IMAGE_CODECS.has(stream.codec_name ?? '') &&
    IMAGE_FORMATS.has(probe.format?.format_name ?? '');
  if (!isImage || !stream.width || !stream.height) return { ok: false, reason: `${subject} is not a PNG or JPEG image` };
  if (stream.width > MAX_WATERMARK_SIDE || stream.height > MAX_WATERMARK_SIDE) {
    return {
      ok: false,
      reason: `${subject} is ${stream.width}×${stream.height} pixels; at most ${MAX_WATERMARK_SIDE}×${MAX_WATERMARK_SIDE} is accepted`,
    };
  }
  return { ok: true, size: { width: stream.width, height: stream.height } };
};

/** The image as one RGBA PNG on stdout. */
export const buildNormaliseImageArgs = (inputPath: string): string[] => [
  '-hide_banner',
  '-nostdin',
  '-v',
  'error',
  '-i',
  inputPath,
  '-map',
  '0:v:0',
  '-frames:v',
  '1',
  '-pix_fmt',
  'rgba',
  '-c:v',
  'png',
  '-fflags',
  '+bitexact',
  '-f',
  'image2pipe',
  'pipe:1',
];

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A PNG's size, from its header (the IHDR chunk that must come first); null if it is not a PNG. */
export const pngSize = (png: Uint8Array): Size | null => {
  const bytes = Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  if (bytes.length < 24 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE) || bytes.toString('latin1', 12, 16) !== 'IHDR') return null;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
};
