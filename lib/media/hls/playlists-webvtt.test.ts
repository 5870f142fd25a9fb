import { describe, expect, test } from 'vitest';
import { renderMediaPlaylist } from './playlists';

describe('renderMediaPlaylist for WebVTT segments', () => {
  test('no init segment: no EXT-X-MAP, the rest as for media segments', () => {
    expect(
      renderMediaPlaylist({
        segments: [
          { duration: 2, uri: 'subtitles-t1/0.vtt' },
          { duration: 4.4, uri: 'subtitles-t1/1.vtt' },
        ],
      }),
    ).toBe(
      [
        '#EXTM3U',
        '#EXT-X-VERSION:7',
        '#EXT-X-TARGETDURATION:4',
        '#EXT-X-MEDIA-SEQUENCE:0',
        '#EXT-X-PLAYLIST-TYPE:VOD',
        '#EXT-X-INDEPENDENT-SEGMENTS',
        '#EXTINF:2.000000,',
        'subtitles-t1/0.vtt',
        '#EXTINF:4.400000,',
        'subtitles-t1/1.vtt',
        '#EXT-X-ENDLIST',
        '',
      ].join('\n'),
    );
  });
});
