import type { OverlayLength, OverlaySettings } from './overlay-settings';

// Where a watermark goes on one picture, by Mux's rules: "%" is of the picture's own width (for
// widths and horizontal margins) or height (heights, vertical margins); "px" is of the picture
// scaled to fit a 1920×1080 frame (1080×1920 when it is portrait), so "80px" on a 960-pixel-wide
// 16:9 picture is 40 pixels. Everything scales with the picture, so each rung of the ladder (and
// each thumbnail size) shows the watermark over the same part of the picture.

export type Size = { width: number; height: number };
export type OverlayRect = { x: number; y: number; width: number; height: number };

const REFERENCE_LONG = 1920;
const REFERENCE_SHORT = 1080;

/** Picture pixels per "px" of overlay_settings: the inverse of the scale that fits the picture into the reference frame. */
export const pixelScale = (frame: Size): number => {
  const portrait = frame.height > frame.width;
  const reference = portrait ? { width: REFERENCE_SHORT, height: REFERENCE_LONG } : { width: REFERENCE_LONG, height: REFERENCE_SHORT };
  return 1 / Math.min(reference.width / frame.width, reference.height / frame.height);
};

const toPixels = (length: OverlayLength, along: number, scale: number): number =>
  length.unit === '%' ? (length.value / 100) * along : length.value * scale;

// yuv420p stores colour at half resolution: even sizes and positions keep the watermark's colour
// edges on its pixel edges, on every rung alike.
const even = (value: number): number => 2 * Math.round(value / 2);
const evenSize = (value: number): number => Math.max(2, even(value));

const place = (align: 'start' | 'middle' | 'end', frame: number, size: number, margin: number): number => {
  // A negative margin moves the watermark past its edge (partly or wholly off the picture); in the
  // middle a positive one moves it right or down.
  if (align === 'start') return margin;
  if (align === 'end') return frame - size - margin;
  return (frame - size) / 2 + margin;
};

const H_ALIGN = { left: 'start', center: 'middle', right: 'end' } as const;
const V_ALIGN = { top: 'start', middle: 'middle', bottom: 'end' } as const;

export const layoutOverlay = ({ frame, image, settings }: { frame: Size; image: Size; settings: OverlaySettings }): OverlayRect => {
  const scale = pixelScale(frame);
  const aspect = image.width / image.height;
  const givenWidth = settings.width && toPixels(settings.width, frame.width, scale);
  const givenHeight = settings.height && toPixels(settings.height, frame.height, scale);
  // Neither given: the image's own pixels in the reference frame; one given: the other follows
  // the image's aspect ratio; both: exactly as given (the image is stretched).
  const width = givenWidth ?? (givenHeight !== undefined ? givenHeight * aspect : image.width * scale);
  const height = givenHeight ?? (givenWidth !== undefined ? givenWidth / aspect : image.height * scale);
  const horizontalMargin = settings.horizontal_margin ? toPixels(settings.horizontal_margin, frame.width, scale) : 0;
  const verticalMargin = settings.vertical_margin ? toPixels(settings.vertical_margin, frame.height, scale) : 0;
  const rect = { width: evenSize(width), height: evenSize(height) };
  return {
    ...rect,
    x: even(place(H_ALIGN[settings.horizontal_align], frame.width, rect.width, horizontalMargin)),
    y: even(place(V_ALIGN[settings.vertical_align], frame.height, rect.height, verticalMargin)),
  };
};
