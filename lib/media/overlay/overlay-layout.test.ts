import { describe, expect, test } from 'vitest';
import { overlaySettingsSchema } from '../../schemas/overlay-settings';
import { layoutOverlay, pixelScale } from './overlay-layout';

const settings = (raw: Record<string, string>) => overlaySettingsSchema.parse(raw);
const hd = { width: 1920, height: 1080 };
const image = { width: 400, height: 200 };

describe('pixelScale: picture pixels per "px" (the picture scaled to fit 1920×1080, or 1080×1920 when portrait)', () => {
  test.each([
    [{ width: 1920, height: 1080 }, 1],
    [{ width: 960, height: 540 }, 0.5],
    [{ width: 3840, height: 2160 }, 2],
    [{ width: 1080, height: 1920 }, 1],
    [{ width: 540, height: 960 }, 0.5],
    // 4:3 fits the 1080 height: 1440×1080 is the fitted picture.
    [{ width: 640, height: 480 }, 480 / 1080],
    // Square: fitted to 1080×1080 in the landscape frame.
    [{ width: 540, height: 540 }, 0.5],
  ])('%o → %f', (frame, scale) => {
    expect(pixelScale(frame)).toBeCloseTo(scale, 9);
  });
});

describe('layoutOverlay', () => {
  test('defaults: top left, no margin, the image\'s own pixels in the 1920×1080 frame', () => {
    expect(layoutOverlay({ frame: hd, image, settings: settings({}) })).toEqual({ x: 0, y: 0, width: 400, height: 200 });
    expect(layoutOverlay({ frame: { width: 960, height: 540 }, image, settings: settings({}) })).toEqual({ x: 0, y: 0, width: 200, height: 100 });
  });

  test('percentages are of the picture: width of its width, height and vertical margin of its height', () => {
    const rect = layoutOverlay({
      frame: hd,
      image,
      settings: settings({ width: '10%', height: '20%', horizontal_margin: '5%', vertical_margin: '10%' }),
    });
    expect(rect).toEqual({ x: 96, y: 108, width: 192, height: 216 });
  });

  test('the Mux example: bottom right, 2% margins, 10% wide, height from the aspect ratio', () => {
    const rect = layoutOverlay({
      frame: hd,
      image,
      settings: settings({ vertical_align: 'bottom', vertical_margin: '2%', horizontal_align: 'right', horizontal_margin: '2%', width: '10%' }),
    });
    // 192 wide, 96 high; margins 38.4 → 38 and 21.6 → 22.
    expect(rect).toEqual({ x: 1920 - 192 - 38, y: 1080 - 96 - 22, width: 192, height: 96 });
  });

  test('the same fraction of the picture on every rung', () => {
    const mux = settings({ vertical_align: 'bottom', vertical_margin: '2%', horizontal_align: 'right', horizontal_margin: '2%', width: '10%' });
    for (const frame of [{ width: 1920, height: 1080 }, { width: 1280, height: 720 }, { width: 640, height: 360 }]) {
      const rect = layoutOverlay({ frame, image, settings: mux });
      expect(rect.width / frame.width).toBeCloseTo(0.1, 2);
      expect((rect.x + rect.width) / frame.width).toBeCloseTo(0.98, 2);
      expect((rect.y + rect.height) / frame.height).toBeCloseTo(0.98, 2);
    }
  });

  test('px in landscape: as if the picture were 1920×1080 ("80px" on a 960-wide picture is 40)', () => {
    const px = settings({ width: '80px', horizontal_margin: '100px', vertical_margin: '40px' });
    expect(layoutOverlay({ frame: { width: 960, height: 540 }, image, settings: px })).toEqual({ x: 50, y: 20, width: 40, height: 20 });
    expect(layoutOverlay({ frame: hd, image, settings: px })).toEqual({ x: 100, y: 40, width: 80, height: 40 });
  });

  test('px in portrait: as if the picture were 1080×1920', () => {
    const px = settings({ height: '300px', horizontal_align: 'right', horizontal_margin: '60px' });
    // 540×960 is half of 1080×1920: 150 high, 300 wide (2:1 image), 30 from the right.
    expect(layoutOverlay({ frame: { width: 540, height: 960 }, image, settings: px })).toEqual({ x: 540 - 300 - 30, y: 0, width: 300, height: 150 });
  });

  test('only height given: the width follows the image\'s aspect ratio', () => {
    expect(layoutOverlay({ frame: hd, image, settings: settings({ height: '10%' }) })).toEqual({ x: 0, y: 0, width: 216, height: 108 });
  });

  test('both given: exactly as given, the image stretched', () => {
    expect(layoutOverlay({ frame: hd, image, settings: settings({ width: '100px', height: '100px' }) })).toMatchObject({ width: 100, height: 100 });
  });

  test('middle and center: centred, positive margins move down and right, negative up and left', () => {
    const centred = layoutOverlay({ frame: hd, image, settings: settings({ vertical_align: 'middle', horizontal_align: 'center' }) });
    expect(centred).toEqual({ x: 760, y: 440, width: 400, height: 200 });
    const shifted = layoutOverlay({
      frame: hd,
      image,
      settings: settings({ vertical_align: 'middle', horizontal_align: 'center', vertical_margin: '10px', horizontal_margin: '-20px' }),
    });
    expect(shifted).toEqual({ x: 740, y: 450, width: 400, height: 200 });
  });

  test('negative margins move the watermark past its edge', () => {
    expect(layoutOverlay({ frame: hd, image, settings: settings({ horizontal_margin: '-100px', vertical_margin: '-50%' }) })).toMatchObject({ x: -100, y: -540 });
    const bottomRight = layoutOverlay({
      frame: hd,
      image,
      settings: settings({ vertical_align: 'bottom', horizontal_align: 'right', vertical_margin: '-100px', horizontal_margin: '-200px' }),
    });
    expect(bottomRight).toEqual({ x: 1920 - 400 + 200, y: 1080 - 200 + 100, width: 400, height: 200 });
  });

  test('even sizes and positions (yuv420p), and never smaller than 2×2', () => {
    const rect = layoutOverlay({ frame: { width: 426, height: 240 }, image: { width: 3, height: 1 }, settings: settings({ horizontal_margin: '3px', width: '7%' }) });
    for (const value of [rect.x, rect.y, rect.width, rect.height]) expect(value % 2).toBe(0);
    expect(layoutOverlay({ frame: { width: 256, height: 144 }, image: { width: 1, height: 1 }, settings: settings({}) })).toMatchObject({ width: 2, height: 2 });
  });
});
