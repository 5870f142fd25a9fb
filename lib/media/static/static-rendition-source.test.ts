import { describe, expect, test } from 'vitest';
import { buildLadder } from '../hls/ladder';
import { staticRenditionSource } from './static-rendition-source';

const ladder = (width: number, height: number, maxResolutionTier: '1080p' | '2160p' = '1080p') =>
  buildLadder({ display: { width, height }, frameRate: 30, encodingTier: 'smart', maxResolutionTier });

const pick = (resolution: string, rungs = ladder(1920, 1080), { viaMp4Support = false, hasAudio = true } = {}) => {
  const source = staticRenditionSource({ resolution, viaMp4Support, rungs, hasAudio });
  return source.kind === 'video' ? `${source.rung.name} ${source.rung.width}x${source.rung.height}` : source.kind === 'audio' ? 'audio' : `${source.status}: ${source.reason}`;
};

describe('staticRenditionSource', () => {
  test('highest is the top rung, background rungs above 1080p included', () => {
    expect(pick('highest')).toBe('1080p 1920x1080');
    expect(pick('highest', ladder(3840, 2160, '2160p'))).toBe('2160p 3840x2160');
  });

  test('capped-1080p and high stop at 1080p; medium at 720p; low at 360p', () => {
    const uhd = ladder(3840, 2160, '2160p');
    expect(pick('capped-1080p', uhd)).toBe('1080p 1920x1080');
    expect(pick('high', uhd)).toBe('1080p 1920x1080');
    expect(pick('medium', uhd)).toBe('720p 1280x720');
    expect(pick('low', uhd)).toBe('360p 640x360');
  });

  test('legacy names on a small source take what there is', () => {
    const small = ladder(320, 240);
    expect(pick('capped-1080p', small)).toBe('240p 320x240');
    expect(pick('low', ladder(426, 240))).toBe('240p 426x240');
  });

  test('a specific resolution is the rung of that name, portrait included', () => {
    expect(pick('720p')).toBe('720p 1280x720');
    expect(pick('720p', ladder(1080, 1920))).toBe('720p 720x1280');
  });

  test('a resolution above the source is skipped, saying why', () => {
    expect(pick('1080p', ladder(1280, 720))).toBe("skipped: The asset's video (1280x720) is smaller than 1080p");
    expect(pick('2160p')).toMatch(/^skipped: .*smaller than 2160p/);
  });

  test('a resolution the ladder lacks is skipped', () => {
    expect(pick('480p')).toBe('skipped: 480p is not one of this asset\'s renditions (270p, 360p, 540p, 720p, 1080p)');
  });

  test('audio-only needs an audio track: skipped for the new API, errored for mp4_support', () => {
    expect(pick('audio-only')).toBe('audio');
    expect(pick('audio-only', ladder(1920, 1080), { hasAudio: false })).toBe('skipped: The asset has no audio track');
    expect(pick('audio-only', ladder(1920, 1080), { hasAudio: false, viaMp4Support: true })).toBe('errored: The asset has no audio track');
  });

  test('a video resolution on an audio-only asset is skipped', () => {
    expect(pick('highest', [])).toBe('skipped: The asset has no video track');
  });
});
