// Every rendition Keyframe makes is 8-bit SDR BT.709 (H.264 in HLS and MP4s, images, GIFs), which
// is what Apple's HLS authoring rules allow for AVC. A source in HDR (HLG, what phones record by
// default, or PQ) or in the BT.2020 gamut has to be converted, not just cut to 8 bits: its values
// kept as they are and shown as BT.709 look washed out and grey (the HLG phone sample: average
// saturation 4.0 against 8.1 for a tone-mapped reference). SDR BT.709/BT.601 sources are left
// exactly as they were, so the arguments (and bytes) of their encodes do not change.

/** How a source's colour differs from SDR BT.709; absent for sources that need nothing. */
export type SourceColour = 'hlg' | 'pq' | 'bt2020';

export type ProbedColour = {
  colorTransfer?: string | null;
  colorPrimaries?: string | null;
  colorSpace?: string | null;
};

const BT2020_MATRICES = new Set(['bt2020nc', 'bt2020c']);

/** The conversion a source needs, from its probed tags (ffprobe's names); null for SDR BT.709/601. */
export const sourceColourOf = ({ colorTransfer, colorPrimaries, colorSpace }: ProbedColour): SourceColour | null => {
  if (colorTransfer === 'arib-std-b67') return 'hlg';
  if (colorTransfer === 'smpte2084') return 'pq';
  if (colorPrimaries === 'bt2020' || BT2020_MATRICES.has(colorSpace ?? '')) return 'bt2020';
  return null;
};

// What the source is taken to be, set explicitly so that frames with missing or inconsistent tags
// (common in phone and 10-bit web video) are converted the same way as the probe decided. A
// BT.2020 source without a transfer tag uses the BT.709 curve (BT.2020's SDR curve is the same).
const INPUT: Record<SourceColour, string> = {
  hlg: 'tin=arib-std-b67:pin=bt2020:min=bt2020nc',
  pq: 'tin=smpte2084:pin=bt2020:min=bt2020nc',
  bt2020: 'tin=bt709:pin=bt2020:min=bt2020nc',
};

// HLG is scene-referred and made to be shown on SDR displays too: zscale converts it straight to
// BT.709 as a display of 400 cd/m² would show it, which puts HLG's reference white (75 % signal)
// at about 75 % of SDR white and clips only the brightest highlights. Measured on the iPhone
// sample against the reference conversion (zscale to linear light, Hable's curve): SSIM 0.979,
// average saturation 0.98×, average luma 132.6 against 134.5 — for 0.35 CPU-s more than no
// conversion per 2 s of 1080p where the reference costs 1.9 (filters alone). PQ is absolute light
// mastered up to thousands of cd/m²: clipping would blow out every highlight, so it goes to
// linear light (100 cd/m² as 1.0), into BT.709 primaries, through Hable's curve (no
// desaturation: it keeps the hue), then to BT.709. SDR BT.2020: only the gamut and matrix change.
const TO_SDR: Record<SourceColour, string> = {
  hlg: `zscale=${INPUT.hlg}:t=bt709:p=bt709:m=bt709:r=tv:npl=400,format=yuv420p`,
  pq: `zscale=${INPUT.pq}:t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p`,
  bt2020: `zscale=${INPUT.bt2020}:t=bt709:p=bt709:m=bt709:r=tv,format=yuv420p`,
};

/**
 * The filters that make a picture SDR BT.709 (8-bit 4:2:0), or null when the source already is.
 * Placed after the scaling: converting at the rendition's size costs a fraction of converting the
 * source's pixels, and the picture is the same to within rounding.
 */
export const toSdrFilters = (colour: SourceColour | null | undefined): string | null => (colour ? TO_SDR[colour] : null);

/** A filter chain (the scaling to a rendition's size), then the conversion to SDR when the source needs one. */
export const thenToSdr = (filters: string, colour: SourceColour | null | undefined): string => [filters, toSdrFilters(colour)].filter(Boolean).join(',');

// zscale slices each frame over the filter threads, and its chroma resampling at the slice edges
// makes the pixels depend on their number (1, 2 and 4 threads: three different segments). ffmpeg
// defaults to one thread per CPU, and `-vf` and `-filter_complex` (a multi-rung run) count
// differently, so the count is fixed, as x264's slices are (encode-args.ts): the same bytes on
// every machine and from every kind of run.
export const SDR_FILTER_THREADS = 2;

/** Global options fixing the filter threads of a converted picture (before the first `-i`). */
export const sdrFilterThreadArgs = (colour: SourceColour | null | undefined): string[] =>
  colour ? ['-filter_threads', String(SDR_FILTER_THREADS), '-filter_complex_threads', String(SDR_FILTER_THREADS)] : [];

/** Encoder options tagging a converted picture as BT.709 (x264 writes them into the stream's VUI). */
export const sdrOutputTags = (colour: SourceColour | null | undefined): string[] =>
  colour ? ['-color_primaries', 'bt709', '-color_trc', 'bt709', '-colorspace', 'bt709', '-color_range', 'tv'] : [];
