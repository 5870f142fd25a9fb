import { describe, expect, test } from 'vitest';
import { overlaySettingsSchema } from '../../schemas/overlay-settings';
import { buildVideoFilterArgs, type OverlayImage } from './overlay-filter';

const watermark = (path: string, raw: Record<string, string>): OverlayImage => ({ path, width: 200, height: 100, settings: overlaySettingsSchema.parse(raw) });

describe('buildVideoFilterArgs', () => {
  test('without watermarks: the plain -vf chain on the first video stream', () => {
    expect(buildVideoFilterArgs({ filters: 'scale=640:360', pixelFormat: 'yuv420p', frame: { width: 640, height: 360 }, overlays: [] })).toEqual({
      inputs: [],
      filter: ['-map', '0:v:0', '-vf', 'scale=640:360,format=yuv420p'],
    });
  });

  test('one watermark: an image input scaled for the picture, faded by its opacity, overlaid where the layout puts it', () => {
    const args = buildVideoFilterArgs({
      filters: 'scale=960:540',
      pixelFormat: 'yuv420p',
      frame: { width: 960, height: 540 },
      overlays: [watermark('/a/0.png', { vertical_align: 'bottom', horizontal_align: 'right', width: '10%', opacity: '60%' })],
    });
    expect(args.inputs).toEqual(['-i', '/a/0.png']);
    expect(args.filter).toEqual([
      '-filter_complex',
      [
        '[0:v:0]scale=960:540,format=yuv420p[base]',
        '[1:v:0]format=rgba,scale=96:48:flags=bicubic,colorchannelmixer=aa=0.6[wm0]',
        '[base][wm0]overlay=x=864:y=492:eof_action=repeat[wm0on]',
        '[wm0on]format=yuv420p[out]',
      ].join(';'),
      '-map',
      '[out]',
    ]);
  });

  test('several watermarks stack in order; full opacity needs no fade', () => {
    const args = buildVideoFilterArgs({
      filters: 'scale=1920:1080',
      pixelFormat: 'rgb24',
      frame: { width: 1920, height: 1080 },
      overlays: [watermark('/a/0.png', {}), watermark('/a/1.png', { horizontal_align: 'right' })],
    });
    expect(args.inputs).toEqual(['-i', '/a/0.png', '-i', '/a/1.png']);
    const graph = args.filter[1]!.split(';');
    expect(graph).toEqual([
      '[0:v:0]scale=1920:1080,format=rgb24[base]',
      '[1:v:0]format=rgba,scale=200:100:flags=bicubic[wm0]',
      '[base][wm0]overlay=x=0:y=0:eof_action=repeat[wm0on]',
      '[2:v:0]format=rgba,scale=200:100:flags=bicubic[wm1]',
      '[wm0on][wm1]overlay=x=1720:y=0:eof_action=repeat[wm1on]',
      '[wm1on]format=rgb24[out]',
    ]);
  });

  test('a chain after the watermarks (the GIF palette) ends the graph', () => {
    const args = buildVideoFilterArgs({
      filters: 'fps=15,scale=320:180',
      after: 'split[a][b];[b]palettegen[p];[a][p]paletteuse',
      frame: { width: 320, height: 180 },
      overlays: [watermark('/a/0.png', {})],
    });
    expect(args.filter[1]!.split(';').slice(-3)).toEqual(['[wm0on]split[a][b]', '[b]palettegen[p]', '[a][p]paletteuse[out]']);
    expect(args.filter[1]).toMatch(/^\[0:v:0\]fps=15,scale=320:180\[base\]/);
  });
});
