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
  const format = pixelFormat ? `format=${pixelFormat}` : undefined;
  if (overlays.length === 0) {
    return { inputs: [], filter: ['-map', '0:v:0', '-vf', [filters, format, after].filter(Boolean).join(',')] };
  }
  const graph = [`[0:v:0]${[filters, format].filter(Boolean).join(',')}[base]`];
  let below = 'base';
  overlays.forEach((overlay, index) => {
    const rect = layoutOverlay({ frame, image: overlay, settings: overlay.settings });
    const opacity = overlay.settings.opacity ?? 1;
    const fade = opacity < 1 ? `,colorchannelmixer=aa=${decimal(opacity)}` : '';
    graph.push(`[${index + 1}:v:0]format=rgba,scale=${rect.width}:${rect.height}:flags=bicubic${fade}[wm${index}]`);
    graph.push(`[${below}][wm${index}]overlay=x=${rect.x}:y=${rect.y}:eof_action=repeat[wm${index}on]`);
    below = `wm${index}on`;
  });
  graph.push(`[${below}]${[format, after].filter(Boolean).join(',') || 'null'}[out]`);
  return {
    inputs: overlays.flatMap((overlay) => ['-i', overlay.path]),
    filter: ['-filter_complex', graph.join(';'), '-map', '[out]'],
  };
};
