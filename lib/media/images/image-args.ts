import { thenToSdr, type SourceColour } from '../colour/sdr-conversion';
import { buildVideoFilterArgs, type OverlayImage } from '../overlay/overlay-filter';
import type { StoryboardLayout } from './storyboard-layout';
import type { Size } from './thumbnail-geometry';

// ffmpeg arguments for the image API, as data. ffmpeg only decodes here (and encodes the animated
// formats): stills leave it as raw RGB frames of a size fixed in advance, so the caller splits
// stdout by byte count and hands pixels to sharp without a PNG round trip. The first video stream
// is used; ffmpeg applies the display matrix itself (a rotated phone video comes out upright), and
// scaling to the display size also corrects non-square pixels.

const QUIET = ['-hide_banner', '-nostdin', '-v', 'error'];
// The video stream is mapped by the filter arguments (a watermarked picture is a filter graph's output).
const VIDEO_ONLY = ['-an', '-sn', '-dn'];
const RAW_RGB_TO_STDOUT = ['-fps_mode', 'passthrough', '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'];

const seekArgs = (seconds: number) => (seconds > 0 ? ['-ss', seconds.toFixed(6)] : []);
// Scaled to the image's size, then (HDR and wide-gamut sources) converted to SDR BT.709 at that size.
const pictureFor = ({ width, height }: Size, sourceColour: SourceColour | undefined, flags = 'bicubic') =>
  thenToSdr(`scale=${width}:${height}:flags=${flags}`, sourceColour);

export const rgbFrameBytes = ({ width, height }: Size): number => width * height * 3;

/**
 * Frames from `seekSeconds` on, scaled to `size`. With `frameLimit: 1` it is the one frame a
 * thumbnail or storyboard tile needs; with `windowSeconds` instead it is every frame of a window
 * (the fallback that finds the last frame when the probed duration overstates where it is).
 * `keyframesOnly` makes the decoder skip everything but keyframes, so the first frame out is the
 * first keyframe at or after the seek point, decoded on its own.
 */
export const buildFrameGrabArgs = ({
  inputPath,
  seekSeconds,
  size,
  frameLimit,
  windowSeconds,
  keyframesOnly = false,
  overlays = [],
  sourceColour,
}: {
  inputPath: string;
  seekSeconds: number;
  size: Size;
  frameLimit?: number;
  windowSeconds?: number;
  keyframesOnly?: boolean;
  overlays?: readonly OverlayImage[];
  sourceColour?: SourceColour;
}): string[] => {
  const video = buildVideoFilterArgs({ filters: pictureFor(size, sourceColour), pixelFormat: 'rgb24', frame: size, overlays });
  return [
    ...QUIET,
    ...(keyframesOnly ? ['-skip_frame', 'nokey'] : []),
    ...seekArgs(seekSeconds),
    ...(windowSeconds === undefined ? [] : ['-t', windowSeconds.toFixed(6)]),
    '-i',
    inputPath,
    ...video.inputs,
    ...VIDEO_ONLY,
    ...(frameLimit === undefined ? [] : ['-frames:v', String(frameLimit)]),
    ...video.filter,
    ...RAW_RGB_TO_STDOUT,
  ];
};

/**
 * Every storyboard tile in one decoding pass: the fps filter emits one frame per tile interval, and
 * with `round=up` each is the last frame at or before the tile's start (the frame on screen then).
 */
export const buildTileStripArgs = ({
  inputPath,
  layout,
  overlays = [],
  sourceColour,
}: {
  inputPath: string;
  layout: StoryboardLayout;
  overlays?: readonly OverlayImage[];
  sourceColour?: SourceColour;
}): string[] => {
  const filters = `fps=fps=1/${layout.interval.toFixed(6)}:round=up,${pictureFor(layout.tile, sourceColour)}`;
  const video = buildVideoFilterArgs({ filters, pixelFormat: 'rgb24', frame: layout.tile, overlays });
  return [...QUIET, '-i', inputPath, ...video.inputs, ...VIDEO_ONLY, '-frames:v', String(layout.tiles.length), ...video.filter, ...RAW_RGB_TO_STDOUT];
};

export type AnimatedFormat = 'gif' | 'webp';

// GIF: one palette computed from every pixel of the clip (palettegen) rather than ffmpeg's fixed
// default palette; palettegen's `stats_mode=diff` was tried and dropped a whole colour after a cut
// (a red-to-blue clip came out red). paletteuse dithers with a Bayer pattern: unlike error
// diffusion it is the same from frame to frame, so flat areas do not crawl and the GIF compresses
// better (a third smaller than sierra2_4a on the Big Buck Bunny titles); `diff_mode=rectangle`
// re-dithers only the region that changed. WebP: libwebp's animated encoder, lossy.
const PALETTE =
  'split[frames][sample];[sample]palettegen=stats_mode=full[palette];[frames][palette]paletteuse=dither=bayer:bayer_scale=5:diff_mode=rectangle';
const ENCODERS: Record<AnimatedFormat, { after?: string; output: string[] }> = {
  gif: { after: PALETTE, output: ['-loop', '0', '-f', 'gif'] },
  webp: { output: ['-c:v', 'libwebp_anim', '-lossless', '0', '-quality', '75', '-loop', '0', '-f', 'webp'] },
};

/** An animated GIF or WebP of [start, start + duration) at `fps`, scaled to `size`, on stdout. */
export const buildAnimatedArgs = ({
  inputPath,
  startSeconds,
  durationSeconds,
  fps,
  size,
  format,
  overlays = [],
  sourceColour,
}: {
  inputPath: string;
  startSeconds: number;
  durationSeconds: number;
  fps: number;
  size: Size;
  format: AnimatedFormat;
  overlays?: readonly OverlayImage[];
  sourceColour?: SourceColour;
}): string[] => {
  const { after, output } = ENCODERS[format];
  const video = buildVideoFilterArgs({ filters: `fps=${fps},${pictureFor(size, sourceColour, 'lanczos')}`, after, frame: size, overlays });
  return [
    ...QUIET,
    ...seekArgs(startSeconds),
    // An input limit, not an output one: the GIF palette is only known once its input has ended.
    '-t',
    durationSeconds.toFixed(6),
    '-i',
    inputPath,
    ...video.inputs,
    ...VIDEO_ONLY,
    ...video.filter,
    ...output,
    'pipe:1',
  ];
};
