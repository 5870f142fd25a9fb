import { describe, expect, test } from 'vitest';
import { matchPlaybackPath } from './playback-paths';

const ID = 'a'.repeat(10) + 'B'.repeat(10) + '0123456789';

describe('matchPlaybackPath', () => {
  test('playlists, segments and images', () => {
    expect(matchPlaybackPath(`/${ID}.m3u8`)).toEqual({ kind: 'multivariant', playbackId: ID });
    expect(matchPlaybackPath(`/${ID}/720p.m3u8`)).toEqual({ kind: 'rendition-playlist', playbackId: ID, rendition: '720p' });
    expect(matchPlaybackPath(`/${ID}/audio/init.mp4`)).toEqual({ kind: 'rendition-file', playbackId: ID, rendition: 'audio', file: 'init.mp4' });
    expect(matchPlaybackPath(`/${ID}/540p/12.m4s`)).toEqual({ kind: 'rendition-file', playbackId: ID, rendition: '540p', file: '12.m4s' });
    expect(matchPlaybackPath(`/${ID}/thumbnail.webp`)).toEqual({ kind: 'image', playbackId: ID, image: 'thumbnail', extension: 'webp' });
    expect(matchPlaybackPath(`/${ID}/storyboard.vtt`)).toEqual({ kind: 'image', playbackId: ID, image: 'storyboard', extension: 'vtt' });
  });

  test('static renditions: every name Mux serves, nothing else', () => {
    for (const name of ['highest.mp4', 'audio.m4a', 'capped-1080p.mp4', '2160p.mp4', '270p.mp4', 'low.mp4', 'medium.mp4', 'high.mp4']) {
      expect(matchPlaybackPath(`/${ID}/${name}`)).toEqual({ kind: 'static-rendition', playbackId: ID, name });
    }
    expect(matchPlaybackPath(`/${ID}/999p.mp4`)).toEqual({ kind: 'unknown', playbackId: ID });
    expect(matchPlaybackPath(`/${ID}/audio.mp4`)).toEqual({ kind: 'unknown', playbackId: ID });
    expect(matchPlaybackPath(`/${ID}/highest.mp4/x`)).toEqual({ kind: 'unknown', playbackId: ID });
  });

  test('text tracks and subtitle segments', () => {
    expect(matchPlaybackPath(`/${ID}/text/${ID}.vtt`)).toEqual({ kind: 'text-track', playbackId: ID, trackId: ID, extension: 'vtt' });
    expect(matchPlaybackPath(`/${ID}/text/${ID}.txt`)).toEqual({ kind: 'text-track', playbackId: ID, trackId: ID, extension: 'txt' });
    expect(matchPlaybackPath(`/${ID}/subtitles-${ID}.m3u8`)).toEqual({ kind: 'rendition-playlist', playbackId: ID, rendition: `subtitles-${ID}` });
    expect(matchPlaybackPath(`/${ID}/subtitles-${ID}/3.vtt`)).toEqual({ kind: 'rendition-file', playbackId: ID, rendition: `subtitles-${ID}`, file: '3.vtt' });
    expect(matchPlaybackPath(`/${ID}/text/${ID}.srt`)).toEqual({ kind: 'unknown', playbackId: ID });
    expect(matchPlaybackPath(`/${ID}/text/a.b.vtt`)).toEqual({ kind: 'unknown', playbackId: ID });
  });

  test('malformed playback IDs in playback shapes are claimed, so they get a 400 in the API shape', () => {
    expect(matchPlaybackPath('/bad!id.m3u8')).toEqual({ kind: 'multivariant', playbackId: 'bad!id' });
    expect(matchPlaybackPath('/short/thumbnail.jpg')).toEqual({ kind: 'image', playbackId: 'short', image: 'thumbnail', extension: 'jpg' });
  });

  test('other paths under a well-formed playback ID are claimed as unknown (404)', () => {
    expect(matchPlaybackPath(`/${ID}/poster.jpg`)).toEqual({ kind: 'unknown', playbackId: ID });
    expect(matchPlaybackPath(`/${ID}/720p/segment.ts`)).toEqual({ kind: 'unknown', playbackId: ID });
  });

  test('the app, the API and framework assets are left alone', () => {
    for (const path of [
      '/',
      '/assets',
      '/assets/abc',
      `/assets/${ID}`,
      '/video/v1/assets',
      `/video/v1/assets/${ID}/playback-ids`,
      '/api/health',
      '/_next/static/chunks/main.js',
      '/_next/a.m3u8',
      `/upload/${ID}`,
      `/player/${ID}`,
      '/player/mux-player.js',
      '/oembed',
      '/sign-in',
      '/favicon.ico',
      `/${ID}/a/b/c/d.m4s`,
      `/${ID}//init.mp4`,
      '/%E0%A4%A.m3u8',
    ]) {
      expect(matchPlaybackPath(path), path).toBeNull();
    }
  });
});
