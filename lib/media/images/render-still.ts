import sharp, { type Sharp } from 'sharp';
import type { StoryboardLayout } from './storyboard-layout';
import type { Size, ThumbnailRecipe } from './thumbnail-geometry';

// Still images with sharp (libvips): exact fit modes (fill / cover / contain with a real
// background), rotation and mirroring as separate, composable operations, proper JPEG/PNG/WebP
// encoders, and sprite composition by pixel offset. Input is raw RGB from ffmpeg.

export type StillFormat = 'jpg' | 'png' | 'webp';

const BLACK = { r: 0, g: 0, b: 0, alpha: 1 };

const ENCODE: Record<StillFormat, (image: Sharp) => Sharp> = {
  jpg: (image) => image.jpeg({ quality: 85 }),
  png: (image) => image.png(),
  webp: (image) => image.webp({ quality: 80 }),
};

const fromRgb = (pixels: Buffer, { width, height }: Size): Sharp => sharp(pixels, { raw: { width, height, channels: 3 } });

export const renderThumbnail = async ({
  frame,
  frameSize,
  recipe,
  format,
}: {
  frame: Buffer;
  frameSize: Size;
  recipe: ThumbnailRecipe;
  format: StillFormat;
}): Promise<Buffer> => {
  let image = fromRgb(frame, frameSize);
  if (recipe.rotate !== 0) image = image.rotate(recipe.rotate);
  if (recipe.resize) {
    const { width, height, fit } = recipe.resize;
    image = image.resize({ width, height, fit, position: 'centre', background: BLACK });
  }
  if (recipe.flipVertical || recipe.flipHorizontal) {
    // sharp always mirrors before rotating; Mux mirrors the finished image, so it is a second pass.
    const { data, info } = await image.raw().toBuffer({ resolveWithObject: true });
    image = sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } })
      .flip(recipe.flipVertical)
      .flop(recipe.flipHorizontal);
  }
  // Padding and compositing add an (opaque) alpha channel that would only make PNG/WebP bigger.
  return ENCODE[format](image.removeAlpha()).toBuffer();
};

/** The storyboard sprite, lossless: tiles (raw RGB at the layout's tile size) at their offsets. */
export const composeSprite = async ({ tiles, layout }: { tiles: Buffer[]; layout: StoryboardLayout }): Promise<Buffer> => {
  const raw = { ...layout.tile, channels: 3 as const };
  return sharp({ create: { ...layout.sprite, channels: 3, background: BLACK } })
    .composite(layout.tiles.flatMap((tile, index) => (tiles[index] ? [{ input: tiles[index], raw, left: tile.x, top: tile.y }] : [])))
    .removeAlpha()
    .png()
    .toBuffer();
};

/** Re-encodes an image (the lossless sprite) in another still format. */
export const encodeStill = (image: Buffer, format: StillFormat): Promise<Buffer> => ENCODE[format](sharp(image)).toBuffer();
