// A watermark's placement as encodes and images read it: Mux's strings ("10%", "80px", "90%")
// already parsed (lib/schemas/overlay-settings.ts parses them and is checked to produce this).
export type OverlayLength = { value: number; unit: '%' | 'px' };

export type OverlaySettings = {
  vertical_align: 'top' | 'middle' | 'bottom';
  vertical_margin?: OverlayLength;
  horizontal_align: 'left' | 'center' | 'right';
  horizontal_margin?: OverlayLength;
  width?: OverlayLength;
  height?: OverlayLength;
  /** 0–1. */
  opacity?: number;
};
