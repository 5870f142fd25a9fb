import type { OverlaySettings } from './overlay-settings';
import { layoutOverlay, type Size } from './overlay-layout';

// Burning watermarks in, as ffmpeg arguments. Each watermark image is one more input (a PNG with
// alpha, normalised at ingest), read once: the overlay filter repeats its single frame over every
// frame of the video (eof_action=repeat), so the video's frames and timestamps pass through
// unchanged and the output ends with the video. Several watermarks are stacked in order.

/** A watermark as encodes use it: the normalised image on disk, its size, and where it goes. */
export type OverlayImage = { path: string; width: number; height: number; settings: OverlaySettings };

export type VideoFilterArgs = {
  /** `-i` arguments for the watermark images, placed after the video's input. */
  inputs: string[];
  /** `-vf`/`-filter_complex` and `-map` for the video. */
  filter: string[];
};

const decimal = (value: number): string => String(Math.round(value * 10_000) / 10_000);

/** Where a video's chains sit in a larger filter graph (several videos encoded by one ffmpeg). */
export type FilterGraphPlacement = {
  /** The label of the video the chains start from: `0:v:0`, or a pad another chain outputs. */
  input: string;
  /** The input index (`-i` position) of the first watermark image; the others follow it. */
  firstImageInput: number;
  /** The label of the video the chains end with. */
  output: string;
  /** Prefixes the chains' inner labels, so that several such chains can share one graph. */
  labelPrefix: string;
};

/** The filter graph of a video, as chains to join with `;`, and its watermark image inputs. */
export type VideoFilterGraph = { inputs: string[]; chains: string[] };

const DEFAULT_PLACEMENT: FilterGraphPlacement = { input: '0:v:0', firstImageInput: 1, output: 'out', labelPrefix: '' };

/**
 * The chains of buildVideoFilterArgs's graph, placed in a larger graph: from `placement.input`
 * through `filters`, the watermarks (images read from inputs `firstImageInput`, …), `pixelFormat`
 * and `after`, to `placement.output`. Without watermarks, the one chain of the `-vf` form.
 * An `after` graph with labels of its own cannot be placed twice in one graph.
 */
export const buildVideoFilterGraph = ({
  filters,
  pixelFormat,
  after,
  frame,
  overlays,
  placement = DEFAULT_PLACEMENT,
}: {
  filters: string;
  pixelFormat?: string;
  after?: string;
  frame: Size;
  overlays: readonly OverlayImage[];
  placement?: FilterGraphPlacement;
}): VideoFilterGraph => {
  const { input, firstImageInput, output, labelPrefix: prefix } = placement;
  const format = pixelFormat ? `format=${pixelFormat}` : undefined;
  if (overlays.length === 0) {
    return { inputs: [], chains: [`[${input}]${[filters, format, after].filter(Boolean).join(',')}[${output}]`] };
  }
  const chains = [`[${input}]${[filters, format].filter(Boolean).join(',')}[${prefix}base]`];
  let below = `${prefix}base`;
  overlays.forEach((overlay, index) => {
    const rect = layoutOverlay({ frame, image: overlay, settings: overlay.settings });
    const opacity = overlay.settings.opacity ?? 1;
    const fade = opacity < 1 ? `,colorchannelmixer=aa=${decimal(opacity)}` : '';
    const image = `${prefix}wm${index}`;
    chains.push(`[${firstImageInput + index}:v:0]format=rgba,scale=${rect.width}:${rect.height}:flags=bicubic${fade}[${image}]`);
    chains.push(`[${below}][${image}]overlay=x=${rect.x}:y=${rect.y}:eof_action=repeat[${image}on]`);
    below = `${image}on`;
  });
  chains.push(`[${below}]${[format, after].filter(Boolean).join(',') || 'null'}[${output}]`);
  return { inputs: overlays.flatMap((overlay) => ['-i', overlay.path]), chains };
};

/**
 * The video filter chain `filters` (on input 0's first video stream) for a picture of `frame`,
 * then the watermarks, then `pixelFormat` and the `after` chain (which may be a graph: its last
 * filter's output is the video). Without watermarks it is the plain `-vf` chain.
 */
export const buildVideoFilterArgs = ({
  filters,
  pixelFormat,
  after,
  frame,
  overlays,
}: {
  filters: string;
  pixelFormat?: string;
  after?: string;
  frame: Size;
  overlays: readonly OverlayImage[];
}): VideoFilterArgs => {
  if (overlays.length === 0) {
    const format = pixelFormat ? `format=${pixelFormat}` : undefined;
    return { inputs: [], filter: ['-map', '0:v:0', '-vf', [filters, format, after].filter(Boolean).join(',')] };
  }
  const { inputs, chains } = buildVideoFilterGraph({ filters, pixelFormat, after, frame, overlays });
  return { inputs, filter: ['-filter_complex', chains.join(';'), '-map', `[${DEFAULT_PLACEMENT.output}]`] };
};
