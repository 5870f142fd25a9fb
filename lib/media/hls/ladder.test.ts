import { describe, expect, test } from 'vitest';
import { avcCodecs, buildLadder, filterLadder, h264Level, presetForRung } from './ladder';

const ladder = (width: number, height: number, options: Partial<Parameters<typeof buildLadder>[0]> = {}) =>
  buildLadder({
    display: { width, height },
    frameRate: 30,
    encodingTier: 'smart',
    maxResolutionTier: '1080p',
    ...options,
  });
const summary = (rungs: ReturnType<typeof ladder>) => rungs.map((rung) => `${rung.name}:${rung.width}x${rung.height}`);

describe('buildLadder', () => {
  test('a 1080p source on smart gets five rungs up to 1080p, none background', () => {
    const rungs = ladder(1920, 1080);
    expect(summary(rungs)).toEqual(['270p:480x270', '360p:640x360', '540p:960x540', '720p:1280x720', '1080p:1920x1080']);
    expect(rungs.every((rung) => !rung.isBackground)).toBe(true);
  });

  test('4K needs max_resolution_tier: 1440p adds one rung, 2160p adds both, each in the background', () => {
    expect(summary(ladder(3840, 2160)).at(-1)).toBe('1080p:1920x1080');
    expect(summary(ladder(3840, 2160, { maxResolutionTier: '1440p' })).slice(-2)).toEqual(['1080p:1920x1080', '1440p:2560x1440']);
    const uhd = ladder(3840, 2160, { maxResolutionTier: '2160p' });
    expect(summary(uhd).slice(-2)).toEqual(['1440p:2560x1440', '2160p:3840x2160']);
    expect(uhd.filter((rung) => rung.isBackground).map((rung) => rung.name)).toEqual(['1440p', '2160p']);
  });

  test('a 2160p tier never upscales a 1080p source', () => {
    expect(summary(ladder(1920, 1080, { maxResolutionTier: '2160p' })).at(-1)).toBe('1080p:1920x1080');
  });

  test('baseline is 360p–1080p and never above 1080p', () => {
    expect(summary(ladder(3840, 2160, { encodingTier: 'baseline', maxResolutionTier: '2160p' }))).toEqual([
      '360p:640x360',
      '540p:960x540',
      '720p:1280x720',
      '1080p:1920x1080',
    ]);
  });

  test('portrait sources give portrait renditions named by their short side', () => {
    expect(summary(ladder(720, 1280))).toEqual(['270p:270x480', '360p:360x640', '540p:540x960', '720p:720x1280']);
  });

  test('odd sizes: 853x479 gets a top rung at its own (even) size', () => {
    expect(summary(ladder(853, 479))).toEqual(['270p:480x270', '360p:642x360', '478p:852x478']);
  });

  test('a source smaller than every rung gets one rung at its own size', () => {
    const rungs = ladder(426, 240);
    expect(summary(rungs)).toEqual(['240p:426x240']);
    expect(rungs[0]?.videoBitrate).toBeLessThan(400_000);
  });

  test('4:3 keeps its aspect', () => {
    expect(summary(ladder(640, 480))).toEqual(['270p:360x270', '360p:480x360', '480p:640x480']);
  });

  test('high frame rates get more bits', () => {
    const at30 = ladder(1920, 1080)[4];
    const at60 = ladder(1920, 1080, { frameRate: 60 })[4];
    expect(at60?.videoBitrate).toBe((at30?.videoBitrate ?? 0) * 1.5);
  });

  test('the quality target depends on the tier and on the rung\'s x264 preset (superfast from 720p, veryfast in the background)', () => {
    const crfs = (rungs: ReturnType<typeof ladder>) => rungs.map((rung) => `${rung.name}:${presetForRung(rung)}:${rung.rateControl?.crf}`);
    expect(crfs(ladder(3840, 2160, { maxResolutionTier: '2160p' }))).toEqual([
      '270p:veryfast:19.5',
      '360p:veryfast:19.5',
      '540p:veryfast:19.5',
      '720p:superfast:21.5',
      '1080p:superfast:21.5',
      '1440p:veryfast:19.5',
      '2160p:veryfast:19.5',
    ]);
    expect(crfs(ladder(1280, 720, { encodingTier: 'premium' }))).toEqual(['270p:veryfast:16.5', '360p:veryfast:16.5', '540p:veryfast:16.5', '720p:superfast:18.5']);
    expect(crfs(ladder(1280, 720, { encodingTier: 'baseline' }))).toEqual(['360p:veryfast:21.5', '540p:veryfast:21.5', '720p:superfast:23.5']);
  });
});

describe('h264Level and CODECS', () => {
  test.each([
    [640, 360, 30, 1_200_000, '3.0', 'avc1.64001e'],
    [1280, 720, 30, 3_750_000, '3.1', 'avc1.64001f'],
    [1920, 1080, 30, 6_750_000, '4.0', 'avc1.640028'],
    [1920, 1080, 60, 10_125_000, '4.2', 'avc1.64002a'],
    [2560, 1440, 30, 13_500_000, '5.0', 'avc1.640032'],
    [3840, 2160, 30, 24_000_000, '5.1', 'avc1.640033'],
  ])('%ix%i@%i %i b/s → level %s (%s)', (width, height, frameRate, maxBitrate, level, codecs) => {
    const result = h264Level({ width, height, frameRate, maxBitrate });
    expect(result.name).toBe(level);
    expect(avcCodecs(result.idc)).toBe(codecs);
  });
});

describe('filterLadder', () => {
  const rungs = ladder(1920, 1080);
  test('max_resolution and min_resolution', () => {
    expect(filterLadder(rungs, { max: '720p' }).map((rung) => rung.name)).toEqual(['270p', '360p', '540p', '720p']);
    expect(filterLadder(rungs, { min: '540p' }).map((rung) => rung.name)).toEqual(['540p', '720p', '1080p']);
  });
  test('a filter that removes everything falls back to the nearest rung', () => {
    expect(filterLadder(rungs, { max: '144p' }).map((rung) => rung.name)).toEqual(['270p']);
    expect(filterLadder(rungs, { min: '2160p' }).map((rung) => rung.name)).toEqual(['1080p']);
  });
});
