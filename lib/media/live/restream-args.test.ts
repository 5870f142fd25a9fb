import { describe, expect, test } from 'vitest';
import { buildRestreamArgs, restreamUrlOf } from './restream-args';

describe('restream arguments', () => {
  test('an RTMP(S) target gets its stream key as the last path element; an SRT URL is used as given', () => {
    expect(restreamUrlOf({ url: 'rtmp://a.rtmp.youtube.com/live2', streamKey: 'abcd-1234' })).toBe('rtmp://a.rtmp.youtube.com/live2/abcd-1234');
    expect(restreamUrlOf({ url: 'rtmps://live.twitch.tv/app/', streamKey: 'live_1' })).toBe('rtmps://live.twitch.tv/app/live_1');
    expect(restreamUrlOf({ url: 'rtmp://host/app/key-in-url', streamKey: null })).toBe('rtmp://host/app/key-in-url');
    expect(restreamUrlOf({ url: 'srt://host:6001?streamid=k&passphrase=p', streamKey: 'ignored' })).toBe('srt://host:6001?streamid=k&passphrase=p');
  });

  test('reads the broadcast back and copies video and audio, FLV to RTMP and MPEG-TS to SRT', () => {
    const rtmp = buildRestreamArgs({ readUrl: 'rtmp://127.0.0.1:1935/app/k', target: { url: 'rtmp://host/app', streamKey: 's' } });
    expect(rtmp[rtmp.indexOf('-i') + 1]).toBe('rtmp://127.0.0.1:1935/app/k');
    expect(rtmp.slice(rtmp.indexOf('-c'), rtmp.indexOf('-c') + 2)).toEqual(['-c', 'copy']);
    expect(rtmp[rtmp.indexOf('-f') + 1]).toBe('flv');
    expect(rtmp.at(-1)).toBe('rtmp://host/app/s');
    const srt = buildRestreamArgs({ readUrl: 'rtmp://127.0.0.1:1935/app/k', target: { url: 'srt://host:6001?streamid=x', streamKey: null } });
    expect(srt[srt.indexOf('-f') + 1]).toBe('mpegts');
    expect(srt.at(-1)).toBe('srt://host:6001?streamid=x');
  });
});
