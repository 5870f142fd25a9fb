import { describe, expect, test } from 'vitest';
import {
  blockingReloadTarget,
  renderLiveMediaPlaylist,
  renderLiveMultivariantPlaylist,
  type LiveMediaPlaylistInput,
  type LivePartEntry,
  type LiveSegmentEntry,
} from './live-playlists';

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 27, 12, 0, 0) + seconds * 1000);

const segment = (msn: number, overrides: Partial<LiveSegmentEntry> = {}): LiveSegmentEntry => ({
  msn,
  durationSeconds: 2,
  uri: `s${msn}.m4s`,
  mapUri: 'init-0.mp4',
  programDateTime: at(msn * 2),
  discontinuity: false,
  ...overrides,
});

const parts = (msn: number, count: number): LivePartEntry[] =>
  Array.from({ length: count }, (_, index) => ({ durationSeconds: 0.5, uri: `p${msn}.${index}.m4s`, independent: index === 0 }));

const base: LiveMediaPlaylistInput = {
  playlistType: 'sliding',
  ended: false,
  targetDurationSeconds: 2,
  mediaSequence: 10,
  discontinuitySequence: 0,
  segments: [segment(10), segment(11)],
};

describe('renderLiveMediaPlaylist', () => {
  test('sliding window: no playlist type, HOLD-BACK of three target durations, PDT on every segment', () => {
    expect(renderLiveMediaPlaylist(base)).toBe(
      [
        '#EXTM3U',
        '#EXT-X-VERSION:6',
        '#EXT-X-TARGETDURATION:2',
        '#EXT-X-SERVER-CONTROL:HOLD-BACK=6.000',
        '#EXT-X-MEDIA-SEQUENCE:10',
        '#EXT-X-INDEPENDENT-SEGMENTS',
        '#EXT-X-MAP:URI="init-0.mp4"',
        '#EXT-X-PROGRAM-DATE-TIME:2026-11-27T12:00:20.000Z',
        '#EXTINF:2.000000,',
        's10.m4s',
        '#EXT-X-PROGRAM-DATE-TIME:2026-11-27T12:00:22.000Z',
        '#EXTINF:2.000000,',
        's11.m4s',
        '',
      ].join('\n'),
    );
  });

  test('event playlist, ended: PLAYLIST-TYPE:EVENT and ENDLIST', () => {
    const text = renderLiveMediaPlaylist({
      ...base,
      playlistType: 'event',
      ended: true,
      mediaSequence: 0,
      segments: [segment(0), segment(1, { durationSeconds: 1.234567 })],
    });
    expect(text).toBe(
      [
        '#EXTM3U',
        '#EXT-X-VERSION:6',
        '#EXT-X-TARGETDURATION:2',
        '#EXT-X-SERVER-CONTROL:HOLD-BACK=6.000',
        '#EXT-X-MEDIA-SEQUENCE:0',
        '#EXT-X-PLAYLIST-TYPE:EVENT',
        '#EXT-X-INDEPENDENT-SEGMENTS',
        '#EXT-X-MAP:URI="init-0.mp4"',
        '#EXT-X-PROGRAM-DATE-TIME:2026-11-27T12:00:00.000Z',
        '#EXTINF:2.000000,',
        's0.m4s',
        '#EXT-X-PROGRAM-DATE-TIME:2026-11-27T12:00:02.000Z',
        '#EXTINF:1.234567,',
        's1.m4s',
        '#EXT-X-ENDLIST',
        '',
      ].join('\n'),
    );
  });

  test('a reconnect: DISCONTINUITY, then the new connection’s EXT-X-MAP; the sequence counts those that left the window', () => {
    const text = renderLiveMediaPlaylist({
      ...base,
      discontinuitySequence: 1,
      includeProgramDateTime: false,
      segments: [segment(10), segment(11, { discontinuity: true, mapUri: 'init-1.mp4', programDateTime: at(60) }), segment(12, { mapUri: 'init-1.mp4' })],
    });
    expect(text).toBe(
      [
        '#EXTM3U',
        '#EXT-X-VERSION:6',
        '#EXT-X-TARGETDURATION:2',
        '#EXT-X-SERVER-CONTROL:HOLD-BACK=6.000',
        '#EXT-X-MEDIA-SEQUENCE:10',
        '#EXT-X-DISCONTINUITY-SEQUENCE:1',
        '#EXT-X-INDEPENDENT-SEGMENTS',
        '#EXT-X-MAP:URI="init-0.mp4"',
        '#EXTINF:2.000000,',
        's10.m4s',
        '#EXT-X-DISCONTINUITY',
        '#EXT-X-MAP:URI="init-1.mp4"',
        '#EXTINF:2.000000,',
        's11.m4s',
        '#EXTINF:2.000000,',
        's12.m4s',
        '',
      ].join('\n'),
    );
  });

  test('low latency: PART-INF, blocking reload, parts of the last segments and the open one, preload hint, rendition reports', () => {
    const text = renderLiveMediaPlaylist({
      ...base,
      segments: [segment(10, { parts: parts(10, 4) }), segment(11, { parts: parts(11, 4) }), segment(12, { parts: parts(12, 4) })],
      lowLatency: {
        partTargetSeconds: 0.5,
        partHoldBackSeconds: 1.5,
        openSegment: { msn: 13, mapUri: 'init-0.mp4', programDateTime: at(26), discontinuity: false, parts: parts(13, 2) },
        preloadHintUri: 'p13.2.m4s',
        renditionReports: [
          { uri: '../360p/index.m3u8', lastMsn: 13, lastPart: 1 },
          { uri: '../source/index.m3u8', lastMsn: 13, lastPart: 0 },
        ],
        keepPartsForSegments: 2,
      },
    });
    expect(text).toBe(
      [
        '#EXTM3U',
        '#EXT-X-VERSION:6',
        '#EXT-X-TARGETDURATION:2',
        '#EXT-X-PART-INF:PART-TARGET=0.500',
        '#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=1.500',
        '#EXT-X-MEDIA-SEQUENCE:10',
        '#EXT-X-INDEPENDENT-SEGMENTS',
        '#EXT-X-MAP:URI="init-0.mp4"',
        '#EXT-X-PROGRAM-DATE-TIME:2026-11-27T12:00:20.000Z',
        '#EXTINF:2.000000,',
        's10.m4s',
        '#EXT-X-PROGRAM-DATE-TIME:2026-11-27T12:00:22.000Z',
        '#EXT-X-PART:DURATION=0.500000,URI="p11.0.m4s",INDEPENDENT=YES',
        '#EXT-X-PART:DURATION=0.500000,URI="p11.1.m4s"',
        '#EXT-X-PART:DURATION=0.500000,URI="p11.2.m4s"',
        '#EXT-X-PART:DURATION=0.500000,URI="p11.3.m4s"',
        '#EXTINF:2.000000,',
        's11.m4s',
        '#EXT-X-PROGRAM-DATE-TIME:2026-11-27T12:00:24.000Z',
        '#EXT-X-PART:DURATION=0.500000,URI="p12.0.m4s",INDEPENDENT=YES',
        '#EXT-X-PART:DURATION=0.500000,URI="p12.1.m4s"',
        '#EXT-X-PART:DURATION=0.500000,URI="p12.2.m4s"',
        '#EXT-X-PART:DURATION=0.500000,URI="p12.3.m4s"',
        '#EXTINF:2.000000,',
        's12.m4s',
        '#EXT-X-PROGRAM-DATE-TIME:2026-11-27T12:00:26.000Z',
        '#EXT-X-PART:DURATION=0.500000,URI="p13.0.m4s",INDEPENDENT=YES',
        '#EXT-X-PART:DURATION=0.500000,URI="p13.1.m4s"',
        '#EXT-X-PRELOAD-HINT:TYPE=PART,URI="p13.2.m4s"',
        '#EXT-X-RENDITION-REPORT:URI="../360p/index.m3u8",LAST-MSN=13,LAST-PART=1',
        '#EXT-X-RENDITION-REPORT:URI="../source/index.m3u8",LAST-MSN=13,LAST-PART=0',
        '',
      ].join('\n'),
    );
  });

  test('low latency, open segment after a reconnect: its DISCONTINUITY, MAP and PDT precede its parts; parts kept for 3 segments by default', () => {
    const text = renderLiveMediaPlaylist({
      ...base,
      segments: [10, 11, 12, 13].map((msn) => segment(msn, { parts: parts(msn, 4) })),
      lowLatency: {
        partTargetSeconds: 0.5,
        partHoldBackSeconds: 1.5,
        openSegment: { msn: 14, mapUri: 'init-1.mp4', programDateTime: at(90), discontinuity: true, parts: parts(14, 1) },
        renditionReports: [],
      },
    });
    expect(text.match(/#EXT-X-PART:/g)).toHaveLength(3 * 4 + 1);
    expect(text).not.toContain('p10.');
    expect(text).not.toContain('PRELOAD-HINT');
    expect(text.endsWith(
      [
        's13.m4s',
        '#EXT-X-DISCONTINUITY',
        '#EXT-X-MAP:URI="init-1.mp4"',
        '#EXT-X-PROGRAM-DATE-TIME:2026-11-27T12:01:30.000Z',
        '#EXT-X-PART:DURATION=0.500000,URI="p14.0.m4s",INDEPENDENT=YES',
        '',
      ].join('\n'),
    )).toBe(true);
  });

  test('low latency, ended: no blocking, preload hint, reports or open segment; parts stay with their PART-INF', () => {
    const text = renderLiveMediaPlaylist({
      ...base,
      ended: true,
      segments: [segment(10, { parts: parts(10, 4) })],
      lowLatency: {
        partTargetSeconds: 0.5,
        partHoldBackSeconds: 1.5,
        openSegment: { msn: 11, mapUri: 'init-0.mp4', programDateTime: at(22), discontinuity: false, parts: parts(11, 1) },
        preloadHintUri: 'p11.1.m4s',
        renditionReports: [{ uri: '../360p/index.m3u8', lastMsn: 11, lastPart: 0 }],
      },
    });
    expect(text).toContain('#EXT-X-PART-INF:PART-TARGET=0.500\n#EXT-X-SERVER-CONTROL:PART-HOLD-BACK=1.500\n');
    expect(text).toContain('#EXT-X-PART:DURATION=0.500000,URI="p10.3.m4s"\n#EXTINF:2.000000,\ns10.m4s\n#EXT-X-ENDLIST\n');
    expect(text).not.toMatch(/CAN-BLOCK-RELOAD|PRELOAD-HINT|RENDITION-REPORT|p11\./);
  });

  test('segments or parts longer than configured raise TARGETDURATION, HOLD-BACK, PART-TARGET and PART-HOLD-BACK to stay within the spec', () => {
    const standard = renderLiveMediaPlaylist({ ...base, segments: [segment(10, { durationSeconds: 4.004 })] });
    expect(standard).toContain('#EXT-X-TARGETDURATION:4\n#EXT-X-SERVER-CONTROL:HOLD-BACK=12.000\n');
    const low = renderLiveMediaPlaylist({
      ...base,
      segments: [segment(10, { parts: [{ durationSeconds: 0.5005, uri: 'p.m4s', independent: true }] })],
      lowLatency: { partTargetSeconds: 0.5, partHoldBackSeconds: 1, openSegment: null, renditionReports: [] },
    });
    expect(low).toContain('#EXT-X-PART-INF:PART-TARGET=0.501\n');
    expect(low).toContain('PART-HOLD-BACK=1.001');
  });

  test('a URI that cannot be quoted is refused', () => {
    expect(() => renderLiveMediaPlaylist({ ...base, segments: [segment(10, { mapUri: 'in"it.mp4' })] })).toThrow(/cannot be quoted/);
  });
});

describe('renderLiveMultivariantPlaylist', () => {
  test('variants highest bandwidth first, audio muxed in (no audio group), INDEPENDENT-SEGMENTS', () => {
    const text = renderLiveMultivariantPlaylist([
      { uri: '360p/index.m3u8', bandwidth: 1_088_000, averageBandwidth: 928_000, codecs: 'avc1.64001e,mp4a.40.2', resolution: { width: 640, height: 360 }, frameRate: 30 },
      { uri: 'source/index.m3u8', bandwidth: 6_128_000, codecs: 'avc1.640028,mp4a.40.2', resolution: { width: 1920, height: 1080 }, frameRate: 29.97 },
      { uri: '720p/index.m3u8', bandwidth: 3_728_000, averageBandwidth: 3_128_000, codecs: 'avc1.64001f,mp4a.40.2', resolution: { width: 1280, height: 720 } },
    ]);
    expect(text).toBe(
      [
        '#EXTM3U',
        '#EXT-X-VERSION:6',
        '#EXT-X-INDEPENDENT-SEGMENTS',
        '#EXT-X-STREAM-INF:BANDWIDTH=6128000,CODECS="avc1.640028,mp4a.40.2",RESOLUTION=1920x1080,FRAME-RATE=29.970',
        'source/index.m3u8',
        '#EXT-X-STREAM-INF:BANDWIDTH=3728000,AVERAGE-BANDWIDTH=3128000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720',
        '720p/index.m3u8',
        '#EXT-X-STREAM-INF:BANDWIDTH=1088000,AVERAGE-BANDWIDTH=928000,CODECS="avc1.64001e,mp4a.40.2",RESOLUTION=640x360,FRAME-RATE=30.000',
        '360p/index.m3u8',
        '',
      ].join('\n'),
    );
  });

  test('generated captions: a subtitles group every variant names', () => {
    const text = renderLiveMultivariantPlaylist([{ uri: 'source/index.m3u8', bandwidth: 2_000_000, codecs: 'avc1.64001f,mp4a.40.2' }], {
      subtitles: [{ uri: 'p/subtitles-generated.m3u8', name: 'English (generated)', language: 'en', closedCaptions: false, isDefault: false }],
    });
    expect(text.split('\n').slice(3, 6)).toEqual([
      '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English (generated)",AUTOSELECT=YES,DEFAULT=NO,FORCED=NO,LANGUAGE="en",URI="p/subtitles-generated.m3u8"',
      '#EXT-X-STREAM-INF:BANDWIDTH=2000000,CODECS="avc1.64001f,mp4a.40.2",SUBTITLES="subs"',
      'source/index.m3u8',
    ]);
  });

  test('embedded CEA-608 captions: a closed-captions group every variant names', () => {
    const text = renderLiveMultivariantPlaylist([{ uri: 'source/index.m3u8', bandwidth: 2_000_000, codecs: 'avc1.64001f,mp4a.40.2' }], {
      closedCaptions: [
        { name: 'English CC', language: 'en', instreamId: 'CC1' },
        { name: 'Español', language: 'es', instreamId: 'CC3' },
      ],
    });
    expect(text.split('\n').slice(3, 7)).toEqual([
      '#EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="English CC",LANGUAGE="en",AUTOSELECT=YES,DEFAULT=NO,INSTREAM-ID="CC1"',
      '#EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="Español",LANGUAGE="es",AUTOSELECT=YES,DEFAULT=NO,INSTREAM-ID="CC3"',
      '#EXT-X-STREAM-INF:BANDWIDTH=2000000,CODECS="avc1.64001f,mp4a.40.2",CLOSED-CAPTIONS="cc"',
      'source/index.m3u8',
    ]);
  });

  test('audio only: codecs alone', () => {
    expect(renderLiveMultivariantPlaylist([{ uri: 'audio/index.m3u8', bandwidth: 136_000, codecs: 'mp4a.40.2' }])).toBe(
      '#EXTM3U\n#EXT-X-VERSION:6\n#EXT-X-INDEPENDENT-SEGMENTS\n#EXT-X-STREAM-INF:BANDWIDTH=136000,CODECS="mp4a.40.2"\naudio/index.m3u8\n',
    );
  });
});

describe('blockingReloadTarget', () => {
  const target = (query: string) => blockingReloadTarget(new URLSearchParams(query));

  test('no directives: an ordinary reload', () => {
    expect(target('')).toBeNull();
    expect(target('token=abc')).toBeNull();
  });

  test('_HLS_msn, with or without _HLS_part', () => {
    expect(target('_HLS_msn=12')).toEqual({ msn: 12 });
    expect(target('_HLS_msn=12&_HLS_part=0')).toEqual({ msn: 12, part: 0 });
    expect(target('_HLS_part=3&_HLS_msn=0')).toEqual({ msn: 0, part: 3 });
  });

  test('_HLS_part without _HLS_msn, or values that are not decimal integers, are invalid', () => {
    for (const query of ['_HLS_part=1', '_HLS_msn=', '_HLS_msn=-1', '_HLS_msn=1.5', '_HLS_msn=0x10', '_HLS_msn=01', '_HLS_msn=1&_HLS_part=a', '_HLS_msn=99999999999999999999']) {
      expect(target(query), query).toBe('invalid');
    }
  });
});
