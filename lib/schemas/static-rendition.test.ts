import { describe, expect, test } from 'vitest';
import { isStaticRenditionName, mp4SupportResolutions, staticRenditionName } from './static-rendition';

describe('static rendition names', () => {
  test('each resolution has its file name', () => {
    expect(staticRenditionName('highest')).toBe('highest.mp4');
    expect(staticRenditionName('audio-only')).toBe('audio.m4a');
    expect(staticRenditionName('720p')).toBe('720p.mp4');
    expect(staticRenditionName('capped-1080p')).toBe('capped-1080p.mp4');
  });

  test('every name Mux serves is recognised, nothing else', () => {
    for (const name of ['low.mp4', 'medium.mp4', 'high.mp4', 'highest.mp4', 'audio.m4a', 'capped-1080p.mp4', '2160p.mp4', '1440p.mp4', '1080p.mp4', '720p.mp4', '540p.mp4', '480p.mp4', '360p.mp4', '270p.mp4']) {
      expect(isStaticRenditionName(name), name).toBe(true);
    }
    for (const name of ['240p.mp4', 'audio.mp4', 'highest.m4a', 'master.mp4', 'init.mp4']) expect(isStaticRenditionName(name), name).toBe(false);
  });
});

describe('mp4SupportResolutions', () => {
  test('maps each legacy value to the files it makes', () => {
    expect(mp4SupportResolutions('none')).toEqual([]);
    expect(mp4SupportResolutions('capped-1080p')).toEqual(['capped-1080p']);
    expect(mp4SupportResolutions('audio-only')).toEqual(['audio-only']);
    expect(mp4SupportResolutions('audio-only,capped-1080p')).toEqual(['audio-only', 'capped-1080p']);
    expect(mp4SupportResolutions('standard')).toEqual(['low', 'medium', 'high']);
  });
});
