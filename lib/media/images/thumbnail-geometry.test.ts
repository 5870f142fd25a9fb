import { describe, expect, test } from 'vitest';
import { planAnimatedSize, planThumbnail, type ThumbnailRequest } from './thumbnail-geometry';

const hd = { width: 1920, height: 1080 };
const request = (overrides: Partial<ThumbnailRequest>): ThumbnailRequest => ({
  width: null,
  height: null,
  fitMode: 'preserve',
  rotate: 0,
  flipVertical: false,
  flipHorizontal: false,
  ...overrides,
});

describe('planThumbnail', () => {
  test('no size asked for: the frame as it is', () => {
    const recipe = planThumbnail(hd, request({}));
    expect(recipe.resize).toBeNull();
    expect(recipe.output).toEqual(hd);
  });

  test('one side given: the other follows the aspect ratio, whatever the fit mode', () => {
    for (const fitMode of ['preserve', 'stretch', 'crop', 'smartcrop', 'pad'] as const) {
      expect(planThumbnail(hd, request({ width: 640, fitMode })).output).toEqual({ width: 640, height: 360 });
      expect(planThumbnail(hd, request({ height: 90, fitMode })).output).toEqual({ width: 160, height: 90 });
    }
    expect(planThumbnail({ width: 853, height: 479 }, request({ width: 100 })).output).toEqual({ width: 100, height: 56 });
  });

  test('preserve fits inside the box (Mux: 100x100 of a 16:9 video is 100x56)', () => {
    expect(planThumbnail(hd, request({ width: 100, height: 100 })).output).toEqual({ width: 100, height: 56 });
    expect(planThumbnail(hd, request({ width: 1000, height: 100 })).output).toEqual({ width: 178, height: 100 });
  });

  test('stretch, crop, smartcrop and pad give exactly the box', () => {
    const box = { width: 300, height: 300 };
    expect(planThumbnail(hd, request({ ...box, fitMode: 'stretch' })).resize).toEqual({ ...box, fit: 'fill' });
    expect(planThumbnail(hd, request({ ...box, fitMode: 'crop' })).resize).toEqual({ ...box, fit: 'cover' });
    expect(planThumbnail(hd, request({ ...box, fitMode: 'smartcrop' })).resize).toEqual({ ...box, fit: 'cover' });
    expect(planThumbnail(hd, request({ ...box, fitMode: 'pad' })).resize).toEqual({ ...box, fit: 'contain' });
  });

  test('rotation by 90 or 270 swaps the sides before fitting', () => {
    expect(planThumbnail(hd, request({ rotate: 90 })).output).toEqual({ width: 1080, height: 1920 });
    expect(planThumbnail(hd, request({ rotate: 270, width: 108 })).output).toEqual({ width: 108, height: 192 });
    expect(planThumbnail(hd, request({ rotate: 180, width: 192 })).output).toEqual({ width: 192, height: 108 });
  });

  test('never rounds a side down to zero', () => {
    expect(planThumbnail({ width: 4000, height: 10 }, request({ width: 10 })).output).toEqual({ width: 10, height: 1 });
  });
});

describe('planAnimatedSize', () => {
  const limits = { defaultWidth: 320, maxSide: 640 };

  test('defaults to 320 wide, height by aspect ratio', () => {
    expect(planAnimatedSize(hd, { width: null, height: null, ...limits })).toEqual({ width: 320, height: 180 });
  });

  test('height alone sets the width by aspect ratio', () => {
    expect(planAnimatedSize(hd, { width: null, height: 90, ...limits })).toEqual({ width: 160, height: 90 });
  });

  test('a portrait source never exceeds 640 on its long side', () => {
    expect(planAnimatedSize({ width: 720, height: 1280 }, { width: 640, height: null, ...limits })).toEqual({ width: 360, height: 640 });
    expect(planAnimatedSize({ width: 720, height: 1280 }, { width: null, height: null, ...limits })).toEqual({ width: 320, height: 569 });
  });

  test('both sides: fits inside the box without distortion', () => {
    expect(planAnimatedSize(hd, { width: 200, height: 200, ...limits })).toEqual({ width: 200, height: 113 });
  });
});
