import { describe, expect, test } from 'vitest';
import { parseMediaPlaylist, PlaylistWatcher, variantResolutions, variantUrls } from './live-playlists';

const MEDIA = `#EXTM3U
#EXT-X-VERSION:9
#EXT-X-TARGETDURATION:2
#EXT-X-MEDIA-SEQUENCE:7
#EXT-X-MAP:URI="source/init-0.mp4"
#EXT-X-PROGRAM-DATE-TIME:2026-11-27T12:00:14.000Z
#EXTINF:2.000,
source/7.m4s
#EXT-X-PROGRAM-DATE-TIME:2026-11-27T12:00:16.000Z
#EXTINF:1.967,
source/8.m4s
`;

const MULTIVARIANT = `#EXTM3U
#EXT-X-STREAM-INF:BANDWIDTH=3500000,RESOLUTION=1280x720,CODECS="avc1.64001f,mp4a.40.2"
abc/source.m3u8
#EXT-X-STREAM-INF:BANDWIDTH=1900000,RESOLUTION=854x480,CODECS="avc1.64001e,mp4a.40.2"
abc/480p.m3u8
`;

// A live media playlist that lists a `segmentSeconds` segment each time `rate` × that much wall time has passed.
const growingPlaylist = (rate: number, segmentSeconds: number) => {
  const startedAt = Date.now();
  return async () => {
    const listed = Math.floor((Date.now() - startedAt) / 1000 / (segmentSeconds / rate));
    const lines = ['#EXTM3U', '#EXT-X-MEDIA-SEQUENCE:0'];
    for (let msn = 0; msn < listed; msn += 1) lines.push(`#EXTINF:${segmentSeconds},`, `${msn}.m4s`);
    return lines.join('\n');
  };
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('live playlists as the benchmark reads them', () => {
  test('media playlists give each segment its sequence number, duration and date', () => {
    expect(parseMediaPlaylist(MEDIA)).toEqual([
      { msn: 7, durationSeconds: 2, programDateTimeMs: Date.parse('2026-11-27T12:00:14.000Z'), discontinuity: 0 },
      { msn: 8, durationSeconds: 1.967, programDateTimeMs: Date.parse('2026-11-27T12:00:16.000Z'), discontinuity: 0 },
    ]);
  });

  test('each segment counts the discontinuities before it, those slid out of the playlist included', () => {
    const slate = MEDIA.replace('#EXT-X-MEDIA-SEQUENCE:7', '#EXT-X-MEDIA-SEQUENCE:7\n#EXT-X-DISCONTINUITY-SEQUENCE:1').replace(
      '#EXT-X-PROGRAM-DATE-TIME:2026-11-27T12:00:16.000Z',
      '#EXT-X-DISCONTINUITY\n#EXT-X-MAP:URI="source/init-2.mp4"\n#EXT-X-PROGRAM-DATE-TIME:2026-11-27T12:00:16.000Z',
    );
    expect(parseMediaPlaylist(slate).map((segment) => [segment.msn, segment.discontinuity])).toEqual([
      [7, 1],
      [8, 2],
    ]);
  });

  test('variants resolve against the multivariant URL, with their resolutions', () => {
    expect(variantUrls('http://127.0.0.1:3000/abc.m3u8', MULTIVARIANT)).toEqual([
      'http://127.0.0.1:3000/abc/source.m3u8',
      'http://127.0.0.1:3000/abc/480p.m3u8',
    ]);
    expect(variantResolutions(MULTIVARIANT)).toEqual(['1280x720', '854x480']);
  });

  test('the fitted growth tells a playlist keeping up from one falling behind', async () => {
    const realTime = growingPlaylist(1, 0.1);
    const behind = growingPlaylist(0.85, 0.1);
    const watcher = new PlaylistWatcher(['real-time', 'behind'], (source) => (source === 'real-time' ? realTime() : behind()), 10);
    const from = Date.now();
    await sleep(1_500);
    const to = Date.now();
    await watcher.stop();
    const kept = watcher.growth('real-time', from, to);
    const fell = watcher.growth('behind', from, to);
    expect(kept.segments).toBeGreaterThan(10);
    expect(kept.fittedRate).toBeGreaterThan(0.95);
    expect(kept.fittedRate).toBeLessThan(1.05);
    expect(fell.fittedRate).toBeGreaterThan(0.8);
    expect(fell.fittedRate).toBeLessThan(0.9);
  });
});
