import { describe, expect, test } from 'vitest';
import { buildSrtRelayArgs, srtListenerUrl } from './srt-relay-args';

describe('SRT relay arguments', () => {
  test('listens on loopback with the stream passphrase and copies the first video and audio to RTMP', () => {
    const args = buildSrtRelayArgs({ listenPort: 41000, passphrase: 'a1b2c3d4e5f60718', publishUrl: 'rtmp://127.0.0.1:1935/app/key?relay=t' });
    const input = args[args.indexOf('-i') + 1]!;
    const url = new URL(input);
    expect(url.protocol).toBe('srt:');
    expect(url.host).toBe('127.0.0.1:41000');
    expect(url.searchParams.get('mode')).toBe('listener');
    expect(url.searchParams.get('passphrase')).toBe('a1b2c3d4e5f60718');
    expect(args.slice(args.indexOf('-c'), args.indexOf('-c') + 2)).toEqual(['-c', 'copy']);
    expect(args.filter((_, index) => args[index - 1] === '-map')).toEqual(['0:v:0?', '0:a:0?']);
    expect(args.at(-1)).toBe('rtmp://127.0.0.1:1935/app/key?relay=t');
    expect(args[args.indexOf('-f') + 1]).toBe('flv');
  });

  test('a stream without a passphrase listens unencrypted', () => {
    expect(new URL(srtListenerUrl({ listenPort: 41000, passphrase: null })).searchParams.has('passphrase')).toBe(false);
  });
});
