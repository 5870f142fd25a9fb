import { describe, expect, test } from 'vitest';
import { buildLadder } from './ladder';
import { renderMediaPlaylist, renderMultivariantPlaylist } from './playlists';

const rungs = buildLadder({ display: { width: 1280, height: 720 }, frameRate: 30, encodingTier: 'smart', maxResolutionTier: '1080p' });
// A 30 s video: two 2 s segments, then 4 s ones, the last one short.
const DURATIONS = [2, 2, 4, 4, 4, 4, 4, 4, 2];

describe('renderMultivariantPlaylist', () => {
  test('variants carry bandwidths, resolution, codecs with audio, frame rate and the audio group', () => {
    const text = renderMultivariantPlaylist({
      rungs: rungs.map((rung) => ({ rung, uri: `pid/${rung.name}.m3u8`, encodedBitrate: rung.name === '720p' ? 1_500_000 : undefined })),
      audio: [{ uri: 'pid/audio.m3u8', name: 'Default', channels: 2, isDefault: true }],
      videoSegmentDurations: DURATIONS,
    });
    expect(text.startsWith('#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-INDEPENDENT-SEGMENTS\n')).toBe(true);
    expect(text).toContain(
      '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="Default",LANGUAGE="und",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="pid/audio.m3u8"',
    );
    expect(text).toContain(
      // The peak: a 2 s segment may spend half of the 1,125,000-bit buffer plus 2 s at the 2.25 Mb/s
      // cap, and its fMP4 framing; the average: what the 720p segments were encoded at, and audio.
      '#EXT-X-STREAM-INF:BANDWIDTH=2664178,AVERAGE-BANDWIDTH=1628000,RESOLUTION=1280x720,CODECS="avc1.64001f,mp4a.40.2",FRAME-RATE=30.000,AUDIO="audio",CLOSED-CAPTIONS=NONE\npid/720p.m3u8',
    );
    // Nothing of 270p encoded yet: no average to declare.
    expect(text).toContain('#EXT-X-STREAM-INF:BANDWIDTH=537928,RESOLUTION=480x270,');
    expect(text.match(/#EXT-X-STREAM-INF/g)).toHaveLength(4);
  });

  test('a rung of a plan made before capped CRF: its maxrate and nominal average, as then', () => {
    const older = { ...rungs.at(-1)!, rateControl: undefined, maxBitrate: 3_750_000 };
    const text = renderMultivariantPlaylist({ rungs: [{ rung: older, uri: 'a.m3u8' }], audio: [], videoSegmentDurations: DURATIONS });
    expect(text).toContain('#EXT-X-STREAM-INF:BANDWIDTH=3750000,AVERAGE-BANDWIDTH=2500000,');
  });

  test('video-only: no audio group and avc1 only', () => {
    const text = renderMultivariantPlaylist({ rungs: [{ rung: rungs[0]!, uri: 'a.m3u8' }], audio: [], videoSegmentDurations: DURATIONS });
    expect(text).not.toContain('EXT-X-MEDIA');
    expect(text).toContain('CODECS="avc1.64001e"');
    expect(text).not.toContain('AUDIO=');
  });

  test('audio-only: one AAC variant pointing at the audio playlist', () => {
    const text = renderMultivariantPlaylist({ rungs: [], audio: [{ uri: 'pid/audio.m3u8', name: 'Default', channels: 2, isDefault: true }], videoSegmentDurations: [] });
    expect(text).toContain('#EXT-X-STREAM-INF:BANDWIDTH=128000,AVERAGE-BANDWIDTH=128000,CODECS="mp4a.40.2"\npid/audio.m3u8');
  });
});

describe('renderMultivariantPlaylist with tracks', () => {
  const english = { uri: 'pid/audio.m3u8', name: 'English', language: 'en', channels: 2, isDefault: true };
  const spanish = { uri: 'pid/audio-t2.m3u8', name: 'Español', language: 'es', channels: 1, isDefault: false };

  test('every audio track is in the audio group, the primary the default', () => {
    const text = renderMultivariantPlaylist({ rungs: [{ rung: rungs[0]!, uri: 'a.m3u8' }], audio: [english, spanish], videoSegmentDurations: DURATIONS });
    expect(text).toContain('#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="pid/audio.m3u8"');
    expect(text).toContain('#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="Español",LANGUAGE="es",DEFAULT=NO,AUTOSELECT=YES,CHANNELS="1",URI="pid/audio-t2.m3u8"');
  });

  test('subtitles: Mux attribute order, SDH characteristics for closed captions, SUBTITLES on every variant', () => {
    const text = renderMultivariantPlaylist({
      rungs: rungs.map((rung) => ({ rung, uri: `pid/${rung.name}.m3u8` })),
      audio: [english],
      videoSegmentDurations: DURATIONS,
      subtitles: [
        { uri: 'pid/subtitles-t3.m3u8', name: 'Swedish', language: 'sv', closedCaptions: true, isDefault: false },
        { uri: 'pid/subtitles-t4.m3u8', name: 'Say "hi"', closedCaptions: false, isDefault: true },
      ],
    });
    expect(text).toContain(
      '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",CHARACTERISTICS="public.accessibility.transcribes-spoken-dialog,public.accessibility.describes-music-and-sound",NAME="Swedish",AUTOSELECT=YES,DEFAULT=NO,FORCED=NO,LANGUAGE="sv",URI="pid/subtitles-t3.m3u8"',
    );
    expect(text).toContain(`#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Say 'hi'",AUTOSELECT=YES,DEFAULT=YES,FORCED=NO,URI="pid/subtitles-t4.m3u8"`);
    const variants = text.split('\n').filter((line) => line.startsWith('#EXT-X-STREAM-INF'));
    expect(variants.length).toBe(rungs.length);
    for (const line of variants) expect(line).toContain('SUBTITLES="subs"');
  });

  test('audio-only with several tracks: the variant plays the default and names the group', () => {
    const text = renderMultivariantPlaylist({ rungs: [], audio: [english, spanish], videoSegmentDurations: [] });
    expect(text).toContain('#EXT-X-STREAM-INF:BANDWIDTH=128000,AVERAGE-BANDWIDTH=128000,CODECS="mp4a.40.2",AUDIO="audio"\npid/audio.m3u8');
    expect(text.match(/TYPE=AUDIO/g)).toHaveLength(2);
  });
});

describe('renderMediaPlaylist', () => {
  test('RFC 8216: target duration covers every rounded EXTINF, map, VOD, endlist', () => {
    const text = renderMediaPlaylist({
      initUri: '720p/init.mp4',
      segments: [
        { duration: 2, uri: '720p/0.m4s' },
        { duration: 4.004, uri: '720p/1.m4s' },
        { duration: 4.6, uri: '720p/2.m4s' },
      ],
    });
    expect(text).toBe(
      [
        '#EXTM3U',
        '#EXT-X-VERSION:7',
        '#EXT-X-TARGETDURATION:5',
        '#EXT-X-MEDIA-SEQUENCE:0',
        '#EXT-X-PLAYLIST-TYPE:VOD',
        '#EXT-X-INDEPENDENT-SEGMENTS',
        '#EXT-X-MAP:URI="720p/init.mp4"',
        '#EXTINF:2.000000,',
        '720p/0.m4s',
        '#EXTINF:4.004000,',
        '720p/1.m4s',
        '#EXTINF:4.600000,',
        '720p/2.m4s',
        '#EXT-X-ENDLIST',
        '',
      ].join('\n'),
    );
  });
});
