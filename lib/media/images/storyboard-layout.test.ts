import { describe, expect, test } from 'vitest';
import { chooseTileExtraction, planStoryboard, storyboardJson, storyboardVtt } from './storyboard-layout';

const hd = { width: 1920, height: 1080 };

describe('planStoryboard', () => {
  test('50 tiles under 15 minutes, 10 per row, 256x144 for 16:9', () => {
    const layout = planStoryboard({ duration: 600, frameRate: 30, display: hd });
    expect(layout.tiles).toHaveLength(50);
    expect(layout.interval).toBe(12);
    expect(layout.tile).toEqual({ width: 256, height: 144 });
    expect({ columns: layout.columns, rows: layout.rows }).toEqual({ columns: 10, rows: 5 });
    expect(layout.sprite).toEqual({ width: 2560, height: 720 });
    expect(layout.tiles[11]).toEqual({ start: 132, x: 256, y: 144 });
  });

  test('100 tiles from 15 minutes on', () => {
    const layout = planStoryboard({ duration: 3600, frameRate: 30, display: hd });
    expect(layout.tiles).toHaveLength(100);
    expect(layout.interval).toBe(36);
    expect(layout.sprite).toEqual({ width: 2560, height: 1440 });
  });

  test('portrait tiles fit the 256 box; small sources are not enlarged', () => {
    expect(planStoryboard({ duration: 60, frameRate: 30, display: { width: 720, height: 1280 } }).tile).toEqual({ width: 144, height: 256 });
    expect(planStoryboard({ duration: 60, frameRate: 30, display: { width: 160, height: 120 } }).tile).toEqual({ width: 160, height: 120 });
  });

  test('a clip shorter than 50 frames gets one tile per frame', () => {
    const layout = planStoryboard({ duration: 1, frameRate: 30, display: hd });
    expect(layout.tiles).toHaveLength(30);
    expect(layout.columns).toBe(10);
    expect(layout.rows).toBe(3);
  });

  test('every tile lies inside the sprite', () => {
    for (const duration of [0.5, 3, 4.97, 61, 899, 901, 7200]) {
      const layout = planStoryboard({ duration, frameRate: 29.97, display: { width: 853, height: 479 } });
      for (const tile of layout.tiles) {
        expect(tile.x + layout.tile.width).toBeLessThanOrEqual(layout.sprite.width);
        expect(tile.y + layout.tile.height).toBeLessThanOrEqual(layout.sprite.height);
      }
    }
  });
});

describe('chooseTileExtraction', () => {
  test('one decoding pass for short assets, exact seeks, then keyframe seeks from a tile every 10 s', () => {
    const strategy = (duration: number) => chooseTileExtraction(planStoryboard({ duration, frameRate: 30, display: hd }));
    expect(strategy(30)).toBe('single-pass');
    expect(strategy(120)).toBe('single-pass');
    expect(strategy(121)).toBe('exact-seeks');
    expect(strategy(499)).toBe('exact-seeks');
    expect(strategy(500)).toBe('keyframe-seeks');
    // 15 minutes switch to 100 tiles: a tile every 9 s, exact again until 1000 s.
    expect(strategy(900)).toBe('exact-seeks');
    expect(strategy(3600)).toBe('keyframe-seeks');
  });
});

describe('storyboard metadata', () => {
  const layout = planStoryboard({ duration: 4.5, frameRate: 30, display: hd });
  const url = 'https://stream.example.com/abc/storyboard.jpg';

  test('VTT cues are back to back from 0 to the duration, each an absolute URL with a media fragment', () => {
    const vtt = storyboardVtt(layout, url);
    expect(vtt.startsWith('WEBVTT\n\n00:00:00.000 --> 00:00:00.090\nhttps://stream.example.com/abc/storyboard.jpg#xywh=0,0,256,144\n')).toBe(true);
    const cues = [...vtt.matchAll(/(\d\d):(\d\d):(\d\d)\.(\d{3}) --> (\d\d):(\d\d):(\d\d)\.(\d{3})/g)].map((match) => {
      const seconds = (offset: number) => Number(match[offset]) * 3600 + Number(match[offset + 1]) * 60 + Number(match[offset + 2]) + Number(match[offset + 3]) / 1000;
      return { start: seconds(1), end: seconds(5) };
    });
    expect(cues).toHaveLength(50);
    expect(cues[0]?.start).toBe(0);
    expect(cues.at(-1)?.end).toBe(4.5);
    for (let index = 1; index < cues.length; index++) expect(cues[index]?.start).toBe(cues[index - 1]?.end);
    expect(vtt).toContain('#xywh=2304,576,256,144');
  });

  test('cue times past an hour', () => {
    const long = planStoryboard({ duration: 3725.5, frameRate: 30, display: hd });
    expect(storyboardVtt(long, url)).toContain('01:01:28.245 --> 01:02:05.500');
  });

  test('JSON has Mux field names', () => {
    const json = storyboardJson(layout, url);
    expect(Object.keys(json)).toEqual(['url', 'tile_width', 'tile_height', 'duration', 'tiles']);
    expect(json.tiles[1]).toEqual({ start: 0.09, x: 256, y: 0 });
  });
});
