import { describe, expect, test } from 'vitest';
import { paramsFromClaims, parseAnimatedParams, parseStoryboardParams, parseThumbnailParams } from './image-params';

const messagesOf = (parsed: { ok: boolean; messages?: string[] }) => (parsed.ok ? [] : (parsed.messages ?? []));

describe('parseThumbnailParams', () => {
  test('defaults: middle of the video, original size, preserve, no rotation or flips', () => {
    expect(parseThumbnailParams({})).toEqual({
      ok: true,
      value: { time: null, width: null, height: null, fitMode: 'preserve', rotate: 0, flipVertical: false, flipHorizontal: false },
    });
  });

  test('reads every parameter', () => {
    const parsed = parseThumbnailParams({ time: '2.5', width: '320', height: '240', fit_mode: 'pad', rotate: '270', flip_v: 'true', flip_h: '1' });
    expect(parsed).toEqual({
      ok: true,
      value: { time: 2.5, width: 320, height: 240, fitMode: 'pad', rotate: 270, flipVertical: true, flipHorizontal: true },
    });
  });

  test('reports every bad parameter by name', () => {
    const messages = messagesOf(
      parseThumbnailParams({ time: '-1', width: '0', height: '5000', fit_mode: 'zoom', rotate: '45', flip_v: 'yes', latest: 'true' }),
    );
    expect(messages).toEqual([
      'latest is only available for live streams',
      'time must be a number of seconds, 0 or more',
      'width must be a whole number from 1 to 4096',
      'height must be a whole number from 1 to 4096',
      'fit_mode must be one of preserve, stretch, crop, smartcrop, pad',
      'rotate must be one of 0, 90, 180, 270',
      'flip_v must be true or false',
    ]);
  });

  test('rejects numbers JavaScript would accept but a URL should not carry', () => {
    for (const time of ['1e3', 'Infinity', 'NaN', '0x10', ' 1']) expect(parseThumbnailParams({ time }).ok).toBe(false);
    expect(parseThumbnailParams({ width: '12.5' }).ok).toBe(false);
    expect(parseThumbnailParams({ time: '.5' })).toMatchObject({ ok: true, value: { time: 0.5 } });
  });
});

describe('parseAnimatedParams', () => {
  test('defaults: 0 to 5 s at 15 fps, size left to the aspect ratio', () => {
    expect(parseAnimatedParams({})).toEqual({ ok: true, value: { start: 0, end: 5, width: null, height: null, fps: 15 } });
    expect(parseAnimatedParams({ start: '3' })).toMatchObject({ ok: true, value: { start: 3, end: 8 } });
  });

  test('the span is 0.25 to 10 s', () => {
    expect(parseAnimatedParams({ start: '1', end: '1.25' }).ok).toBe(true);
    expect(parseAnimatedParams({ start: '0', end: '10' }).ok).toBe(true);
    expect(messagesOf(parseAnimatedParams({ start: '1', end: '1.2' }))).toEqual(['end must be 0.25 to 10 seconds after start (got 0.2)']);
    expect(messagesOf(parseAnimatedParams({ start: '0', end: '10.5' }))).toHaveLength(1);
    expect(messagesOf(parseAnimatedParams({ start: '5', end: '2' }))).toHaveLength(1);
  });

  test('width and height at most 640, fps at most 30', () => {
    expect(messagesOf(parseAnimatedParams({ width: '641', height: '0', fps: '60' }))).toEqual([
      'width must be a whole number from 1 to 640',
      'height must be a whole number from 1 to 640',
      'fps must be a whole number from 1 to 30',
    ]);
  });
});

describe('parseStoryboardParams', () => {
  test('format defaults to jpg and must be a still format', () => {
    expect(parseStoryboardParams({})).toEqual({ ok: true, value: { format: 'jpg' } });
    expect(parseStoryboardParams({ format: 'webp' })).toEqual({ ok: true, value: { format: 'webp' } });
    expect(messagesOf(parseStoryboardParams({ format: 'gif' }))).toEqual(['format must be one of jpg, png, webp']);
  });
});

describe('paramsFromClaims', () => {
  test('numbers and booleans become parameters; objects are ignored', () => {
    expect(paramsFromClaims({ time: 12, flip_h: true, width: '100', aud: 't', nested: { a: 1 } })).toEqual({
      time: '12',
      flip_h: 'true',
      width: '100',
      aud: 't',
    });
  });
});
