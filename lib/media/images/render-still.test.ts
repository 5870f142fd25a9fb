import sharp from 'sharp';
import { describe, expect, test } from 'vitest';
import { composeSprite, encodeStill, renderThumbnail } from './render-still';
import { planStoryboard } from './storyboard-layout';
import { planThumbnail, type ThumbnailRequest } from './thumbnail-geometry';

// A 40x20 frame: left half red, right half blue, so every transformation is visible in the pixels.
const frameSize = { width: 40, height: 20 };
const RED = [255, 0, 0];
const BLUE = [0, 0, 255];
const frame = Buffer.alloc(40 * 20 * 3);
for (let y = 0; y < 20; y++) {
  for (let x = 0; x < 40; x++) frame.set(x < 20 ? RED : BLUE, (y * 40 + x) * 3);
}

const request = (overrides: Partial<ThumbnailRequest>): ThumbnailRequest => ({
  width: null,
  height: null,
  fitMode: 'preserve',
  rotate: 0,
  flipVertical: false,
  flipHorizontal: false,
  ...overrides,
});

const render = async (overrides: Partial<ThumbnailRequest>, format: 'png' | 'jpg' | 'webp' = 'png') => {
  const recipe = planThumbnail(frameSize, request(overrides));
  const encoded = await renderThumbnail({ frame, frameSize, recipe, format });
  const { data, info } = await sharp(encoded).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const pixel = (x: number, y: number) => [...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3)];
  return { encoded, info, pixel, recipe };
};

const near = (actual: number[], expected: number[]) => actual.every((value, index) => Math.abs(value - (expected[index] ?? 0)) < 40);

describe('renderThumbnail', () => {
  test('encodes in the requested format at the planned size', async () => {
    for (const format of ['jpg', 'png', 'webp'] as const) {
      const { encoded, recipe } = await render({ width: 30, height: 30, fitMode: 'stretch' }, format);
      const metadata = await sharp(encoded).metadata();
      expect(metadata.format).toBe(format === 'jpg' ? 'jpeg' : format);
      expect({ width: metadata.width, height: metadata.height }).toEqual(recipe.output);
      expect(recipe.output).toEqual({ width: 30, height: 30 });
    }
  });

  test('rotate 90 turns clockwise: the left half ends up on top', async () => {
    const { info, pixel } = await render({ rotate: 90 });
    expect({ width: info.width, height: info.height }).toEqual({ width: 20, height: 40 });
    expect(pixel(10, 2)).toEqual(RED);
    expect(pixel(10, 37)).toEqual(BLUE);
  });

  test('flips apply to the finished image, after rotation', async () => {
    const rotatedThenFlippedVertically = await render({ rotate: 90, flipVertical: true });
    expect(rotatedThenFlippedVertically.pixel(10, 2)).toEqual(BLUE);
    const mirrored = await render({ flipHorizontal: true });
    expect(mirrored.pixel(2, 10)).toEqual(BLUE);
  });

  test('pad letterboxes in black, crop fills the box from the centre', async () => {
    const padded = await render({ width: 40, height: 40, fitMode: 'pad' });
    expect((await sharp(padded.encoded).metadata()).channels).toBe(3);
    expect({ width: padded.info.width, height: padded.info.height }).toEqual({ width: 40, height: 40 });
    expect(padded.pixel(5, 2)).toEqual([0, 0, 0]);
    expect(padded.pixel(5, 20)).toEqual(RED);
    const cropped = await render({ width: 10, height: 10, fitMode: 'crop' });
    expect(near(cropped.pixel(1, 5), RED)).toBe(true);
    expect(near(cropped.pixel(8, 5), BLUE)).toBe(true);
  });
});

describe('composeSprite', () => {
  test('places each tile at its offset and re-encodes', async () => {
    const layout = planStoryboard({ duration: 2, frameRate: 2, display: { width: 8, height: 4 } });
    expect(layout.tiles).toHaveLength(4);
    const tiles = layout.tiles.map((_, index) => Buffer.alloc(8 * 4 * 3, index * 60));
    const sprite = await composeSprite({ tiles, layout });
    const { data, info } = await sharp(sprite).raw().toBuffer({ resolveWithObject: true });
    expect({ width: info.width, height: info.height, channels: info.channels }).toEqual({ ...layout.sprite, channels: 3 });
    layout.tiles.forEach((tile, index) => expect(data[(tile.y * info.width + tile.x + 1) * info.channels]).toBe(index * 60));
    expect((await sharp(await encodeStill(sprite, 'webp')).metadata()).format).toBe('webp');
  });
});
