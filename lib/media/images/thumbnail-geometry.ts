// Mux's thumbnail transformations as data: given the decoded frame's size and the request, what
// to rotate, how to resize, what to flip, and the exact size of the result. The renderer turns the
// recipe into sharp calls; keeping the arithmetic here makes every fit mode testable without images.

export type FitMode = 'preserve' | 'stretch' | 'crop' | 'smartcrop' | 'pad';
export type Rotation = 0 | 90 | 180 | 270;
export type Size = { width: number; height: number };

// sharp's names: `fill` distorts to the box, `cover` fills it and crops the overflow around the
// centre, `contain` fits inside it and pads with the background.
export type ResizeFit = 'fill' | 'cover' | 'contain';

export type ThumbnailRecipe = {
  rotate: Rotation;
  // null keeps the (rotated) frame as it is.
  resize: { width: number; height: number; fit: ResizeFit } | null;
  // Applied after everything else, as Mux documents: flipVertical mirrors top-bottom,
  // flipHorizontal left-right, both in the orientation of the finished image.
  flipVertical: boolean;
  flipHorizontal: boolean;
  output: Size;
};

export type ThumbnailRequest = {
  width: number | null;
  height: number | null;
  fitMode: FitMode;
  rotate: Rotation;
  flipVertical: boolean;
  flipHorizontal: boolean;
};

const atLeastOne = (value: number) => Math.max(1, Math.round(value));

const rotatedSize = (frame: Size, rotate: Rotation): Size =>
  rotate === 90 || rotate === 270 ? { width: frame.height, height: frame.width } : frame;

// Mux's `preserve`: the largest size with the frame's aspect ratio that fits inside the box, so a
// 100x100 request for a 16:9 video gives 100x56.
const fitInside = (source: Size, box: Size): Size => {
  const scale = Math.min(box.width / source.width, box.height / source.height);
  return {
    width: Math.min(box.width, atLeastOne(source.width * scale)),
    height: Math.min(box.height, atLeastOne(source.height * scale)),
  };
};

const FIT_FOR_MODE: Record<Exclude<FitMode, 'preserve'>, ResizeFit> = {
  stretch: 'fill',
  crop: 'cover',
  // No subject detection here: smartcrop crops around the centre, exactly like crop.
  smartcrop: 'cover',
  pad: 'contain',
};

const resizeFor = (source: Size, request: ThumbnailRequest): ThumbnailRecipe['resize'] => {
  const { width, height, fitMode } = request;
  // With one side given, the other follows the aspect ratio and every fit mode gives the same image.
  if (width !== null && height === null) return { width, height: atLeastOne((width * source.height) / source.width), fit: 'fill' };
  if (width === null && height !== null) return { width: atLeastOne((height * source.width) / source.height), height, fit: 'fill' };
  if (width === null || height === null) return null;
  if (fitMode === 'preserve') return { ...fitInside(source, { width, height }), fit: 'fill' };
  return { width, height, fit: FIT_FOR_MODE[fitMode] };
};

export const planThumbnail = (frame: Size, request: ThumbnailRequest): ThumbnailRecipe => {
  const rotated = rotatedSize(frame, request.rotate);
  const resize = resizeFor(rotated, request);
  return {
    rotate: request.rotate,
    resize,
    flipVertical: request.flipVertical,
    flipHorizontal: request.flipHorizontal,
    output: resize ? { width: resize.width, height: resize.height } : rotated,
  };
};

// Animated images: `width` defaults to 320 with the height following the aspect ratio; given both,
// the animation fits inside the box without distortion; neither side may exceed the maximum
// (a 9:16 source asked for width=640 comes out 360x640).
export const planAnimatedSize = (
  source: Size,
  { width, height, defaultWidth, maxSide }: { width: number | null; height: number | null; defaultWidth: number; maxSide: number },
): Size => {
  const box =
    width !== null && height !== null
      ? { width, height }
      : height !== null
        ? { width: maxSide, height }
        : { width: width ?? defaultWidth, height: maxSide };
  return fitInside(source, { width: Math.min(box.width, maxSide), height: Math.min(box.height, maxSide) });
};
