import { describe, expect, test } from 'vitest';
import { buildAnimatedArgs, buildFrameGrabArgs, buildTileStripArgs, rgbFrameBytes } from './image-args';
import { overlaySettingsSchema } from '../../schemas/overlay-settings';
import { splitRgbFrames } from './raw-frames';
import { planStoryboard } from './storyboard-layout';

const valueAfter = (args: string[], flag: string) => args[args.indexOf(flag) + 1];

describe('buildFrameGrabArgs', () => {
  const args = buildFrameGrabArgs({ inputPath: '/data/source', seekSeconds: 2.901, size: { width: 720, height: 1280 }, frameLimit: 1 });

  test('accurate input seek before -i, first video stream only, one frame', () => {
    expect(args.indexOf('-ss')).toBeLessThan(args.indexOf('-i'));
    expect(valueAfter(args, '-ss')).toBe('2.901000');
    expect(valueAfter(args, '-map')).toBe('0:v:0');
    expect(args).toEqual(expect.arrayContaining(['-an', '-sn', '-dn']));
    expect(valueAfter(args, '-frames:v')).toBe('1');
  });

  test('raw RGB at the display size on stdout', () => {
    expect(valueAfter(args, '-vf')).toBe('scale=720:1280:flags=bicubic,format=rgb24');
    expect(valueAfter(args, '-f')).toBe('rawvideo');
    expect(valueAfter(args, '-pix_fmt')).toBe('rgb24');
    expect(args.at(-1)).toBe('pipe:1');
  });

  test('no seek at 0; a window instead of a frame limit reads every frame of it', () => {
    const window = buildFrameGrabArgs({ inputPath: '/s', seekSeconds: 0, size: { width: 2, height: 2 }, windowSeconds: 2.5 });
    expect(window).not.toContain('-ss');
    expect(window).not.toContain('-frames:v');
    expect(window.indexOf('-t')).toBeLessThan(window.indexOf('-i'));
    expect(valueAfter(window, '-t')).toBe('2.500000');
  });
});

test('keyframes only: the decoder skips everything else (an input option, before -i)', () => {
  const args = buildFrameGrabArgs({ inputPath: '/s', seekSeconds: 36, size: { width: 256, height: 144 }, frameLimit: 1, keyframesOnly: true });
  expect(valueAfter(args, '-skip_frame')).toBe('nokey');
  expect(args.indexOf('-skip_frame')).toBeLessThan(args.indexOf('-i'));
  expect(buildFrameGrabArgs({ inputPath: '/s', seekSeconds: 36, size: { width: 2, height: 2 } })).not.toContain('-skip_frame');
});

describe('buildTileStripArgs', () => {
  test('one frame per tile interval, scaled to the tile, as many frames as tiles', () => {
    const layout = planStoryboard({ duration: 10, frameRate: 30, display: { width: 1920, height: 1080 } });
    const args = buildTileStripArgs({ inputPath: '/s', layout });
    expect(args).not.toContain('-ss');
    expect(valueAfter(args, '-vf')).toBe('fps=fps=1/0.200000:round=up,scale=256:144:flags=bicubic,format=rgb24');
    expect(valueAfter(args, '-frames:v')).toBe('50');
    expect(valueAfter(args, '-f')).toBe('rawvideo');
  });
});

describe('buildAnimatedArgs', () => {
  const base = { inputPath: '/s', startSeconds: 1.5, durationSeconds: 2, fps: 15, size: { width: 320, height: 180 } };

  test('GIF with a palette generated from the clip', () => {
    const args = buildAnimatedArgs({ ...base, format: 'gif' });
    expect(valueAfter(args, '-ss')).toBe('1.500000');
    // The duration limits the input, before -i, so the palette sees the end of the stream.
    expect(args.indexOf('-t')).toBeLessThan(args.indexOf('-i'));
    expect(valueAfter(args, '-t')).toBe('2.000000');
    expect(valueAfter(args, '-vf')).toBe(
      'fps=15,scale=320:180:flags=lanczos,split[frames][sample];[sample]palettegen=stats_mode=full[palette];[frames][palette]paletteuse=dither=bayer:bayer_scale=5:diff_mode=rectangle',
    );
    expect(valueAfter(args, '-f')).toBe('gif');
    expect(valueAfter(args, '-loop')).toBe('0');
  });

  test('animated WebP with libwebp', () => {
    const args = buildAnimatedArgs({ ...base, format: 'webp' });
    expect(valueAfter(args, '-vf')).toBe('fps=15,scale=320:180:flags=lanczos');
    expect(valueAfter(args, '-c:v')).toBe('libwebp_anim');
    expect(valueAfter(args, '-f')).toBe('webp');
  });
});

describe('splitRgbFrames', () => {
  test('whole frames only', () => {
    const size = { width: 2, height: 1 };
    expect(rgbFrameBytes(size)).toBe(6);
    const frames = splitRgbFrames(Buffer.from([1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3]), size);
    expect(frames.map((frame) => [...frame])).toEqual([
      [1, 1, 1, 1, 1, 1],
      [2, 2, 2, 2, 2, 2],
    ]);
  });
});

describe('with a watermark (images show what the video shows)', () => {
  const overlays = [{ path: '/d/0.png', width: 100, height: 100, settings: overlaySettingsSchema.parse({ horizontal_align: 'right', width: '25%' }) }];

  test('a frame grab overlays it at the grabbed size, as raw RGB', () => {
    const args = buildFrameGrabArgs({ inputPath: '/s', seekSeconds: 1, size: { width: 640, height: 360 }, frameLimit: 1, overlays });
    expect(args.filter((_, index) => args[index - 1] === '-i')).toEqual(['/s', '/d/0.png']);
    expect(args.indexOf('-ss')).toBeLessThan(args.indexOf('-i'));
    expect(valueAfter(args, '-map')).toBe('[out]');
    expect(valueAfter(args, '-filter_complex')!.split(';')).toEqual([
      '[0:v:0]scale=640:360:flags=bicubic,format=rgb24[base]',
      '[1:v:0]format=rgba,scale=160:160:flags=bicubic[wm0]',
      '[base][wm0]overlay=x=480:y=0:eof_action=repeat[wm0on]',
      '[wm0on]format=rgb24[out]',
    ]);
  });

  test('storyboard tiles get it at the tile size', () => {
    const layout = planStoryboard({ duration: 10, frameRate: 30, display: { width: 1920, height: 1080 } });
    const args = buildTileStripArgs({ inputPath: '/s', layout, overlays });
    expect(valueAfter(args, '-filter_complex')).toContain(`scale=${layout.tile.width / 4}:`);
  });

  test('a GIF overlays it before the palette is made', () => {
    const args = buildAnimatedArgs({ inputPath: '/s', startSeconds: 0, durationSeconds: 2, fps: 15, size: { width: 320, height: 180 }, format: 'gif', overlays });
    const graph = valueAfter(args, '-filter_complex')!;
    expect(graph.indexOf('overlay=')).toBeLessThan(graph.indexOf('palettegen'));
    expect(graph.endsWith('paletteuse=dither=bayer:bayer_scale=5:diff_mode=rectangle[out]')).toBe(true);
    expect(args.lastIndexOf('-i')).toBeLessThan(args.indexOf('-filter_complex'));
  });
});
