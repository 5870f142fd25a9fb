import { describe, expect, test } from 'vitest';
import {
  audioRenditionName,
  INIT_FILE,
  isRenditionFileName,
  isSubtitlesRendition,
  liveConnectionFolder,
  liveInitFileName,
  livePartFileName,
  parseAudioRenditionName,
  parseLiveConnectionFolder,
  parseLiveInitFileName,
  parseLivePartFileName,
  parsePlaylistFileName,
  parseSegmentFileName,
  parseSubtitlesSegmentFileName,
  playlistFileName,
  PRIMARY_AUDIO_RENDITION,
  renditionFileUri,
  renditionPlaylistUri,
  rungName,
  segmentFileName,
  shortSideOfResolution,
  shortSideOfRungName,
  subtitlesRenditionName,
  subtitlesSegmentFileName,
} from './names';

// The names are URLs and stored files: these strings are what players, caches and assets written
// by earlier versions rely on, so they are spelled out rather than derived.

describe('rendition names', () => {
  test('rungs are named after their short side, and parsed back', () => {
    expect(rungName(720)).toBe('720p');
    expect(rungName(2160)).toBe('2160p');
    expect(shortSideOfRungName(rungName(1080))).toBe(1080);
    expect(shortSideOfRungName(rungName(270))).toBe(270);
  });

  test('names that are no rung are rejected', () => {
    for (const name of ['audio', 'source', '720', 'p', '720p ', 'x720p', '720P', '72.0p', '']) expect(shortSideOfRungName(name)).toBeNull();
  });

  test('resolutions as the API spells them are rung names of three or four digits', () => {
    expect(shortSideOfResolution(rungName(720))).toBe(720);
    expect(shortSideOfResolution(rungName(2160))).toBe(2160);
    for (const value of [rungName(90), rungName(12345), 'highest', '720', '']) expect(shortSideOfResolution(value)).toBeNull();
  });

  test('the primary audio track keeps "audio"; other audio tracks are audio-{trackId}', () => {
    expect(audioRenditionName({ id: 'Ab12', primary: true })).toBe('audio');
    expect(PRIMARY_AUDIO_RENDITION).toBe('audio');
    expect(audioRenditionName({ id: 'Ab12', primary: false })).toBe('audio-Ab12');
    expect(parseAudioRenditionName(audioRenditionName({ id: 'Ab12', primary: true }))).toEqual({ primary: true });
    expect(parseAudioRenditionName(audioRenditionName({ id: 'Ab12', primary: false }))).toEqual({ primary: false, trackId: 'Ab12' });
  });

  test('names that are no audio rendition are rejected', () => {
    for (const name of ['audio-', 'audios', 'Audio', '720p', 'subtitles-Ab12', '']) expect(parseAudioRenditionName(name)).toBeNull();
  });

  test('text tracks are subtitles-{trackId}', () => {
    expect(subtitlesRenditionName('Cd34')).toBe('subtitles-Cd34');
    expect(isSubtitlesRendition(subtitlesRenditionName('Cd34'))).toBe(true);
    for (const name of ['audio', 'audio-Cd34', '720p', 'subtitle-Cd34']) expect(isSubtitlesRendition(name)).toBe(false);
  });
});

describe('file names', () => {
  test('media segments are {index}.m4s, parsed back to their index', () => {
    expect(INIT_FILE).toBe('init.mp4');
    expect(segmentFileName(0)).toBe('0.m4s');
    expect(segmentFileName(41)).toBe('41.m4s');
    expect(parseSegmentFileName(segmentFileName(41))).toBe(41);
    expect(parseSegmentFileName(segmentFileName(123456))).toBe(123456);
  });

  test('anything else in a rendition folder is no media segment', () => {
    for (const file of [INIT_FILE, 'complete.json', '3.m4s.partial', '3.1.m4s', '-1.m4s', '.m4s', '3.vtt', 'init-0.mp4']) {
      expect(parseSegmentFileName(file)).toBeNull();
    }
  });

  test('subtitles segments are {index}.vtt', () => {
    expect(subtitlesSegmentFileName(7)).toBe('7.vtt');
    expect(parseSubtitlesSegmentFileName(subtitlesSegmentFileName(7))).toBe(7);
    for (const file of ['7.m4s', '1234567.vtt', 'a.vtt', '.vtt']) expect(parseSubtitlesSegmentFileName(file)).toBeNull();
  });

  test('live: an init per connection, parts {msn}.{part}.m4s', () => {
    expect(liveInitFileName(2)).toBe('init-2.mp4');
    expect(parseLiveInitFileName(liveInitFileName(2))).toBe(2);
    expect(livePartFileName(17, 3)).toBe('17.3.m4s');
    expect(parseLivePartFileName(livePartFileName(17, 3))).toEqual({ msn: 17, part: 3 });
    for (const file of [INIT_FILE, 'init-.mp4', 'init-12345.mp4', '17.m4s']) expect(parseLiveInitFileName(file)).toBeNull();
    for (const file of ['17.m4s', '17..m4s', '17.1234.m4s', 'init-2.mp4']) expect(parseLivePartFileName(file)).toBeNull();
  });

  test('every file a rendition URL may name, and nothing else', () => {
    const made = [INIT_FILE, segmentFileName(12), subtitlesSegmentFileName(12), liveInitFileName(3), livePartFileName(12, 2)];
    for (const file of made) expect(isRenditionFileName(file)).toBe(true);
    for (const file of ['complete.json', 'init.mp4.partial', '1234567.m4s', '12.1234.m4s', 'init-12345.mp4', 'x.m4s', '']) {
      expect(isRenditionFileName(file)).toBe(false);
    }
  });

  test('live connections write into c{connection}/', () => {
    expect(liveConnectionFolder(0)).toBe('c0');
    expect(parseLiveConnectionFolder(liveConnectionFolder(12))).toBe(12);
    for (const name of ['c', 'source', 'broadcast.json', 'C1', 'c1x']) expect(parseLiveConnectionFolder(name)).toBeNull();
  });
});

describe('URIs', () => {
  test('playlists are {name}.m3u8, parsed back to the name', () => {
    expect(playlistFileName('720p')).toBe('720p.m3u8');
    expect(parsePlaylistFileName(playlistFileName('audio-Ab12'))).toBe('audio-Ab12');
    for (const file of ['720p.m3u', '720p', '720p.m3u8.vtt']) expect(parsePlaylistFileName(file)).toBeNull();
  });

  test('a multivariant playlist names rendition playlists below the playback ID; a media playlist its files beside it', () => {
    expect(renditionPlaylistUri('pb1', '720p')).toBe('pb1/720p.m3u8');
    expect(renditionFileUri('720p', INIT_FILE)).toBe('720p/init.mp4');
    expect(renditionFileUri('audio', segmentFileName(3))).toBe('audio/3.m4s');
    expect(renditionFileUri('source', livePartFileName(9, 0))).toBe('source/9.0.m4s');
  });
});
