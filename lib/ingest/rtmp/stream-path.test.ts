import { describe, expect, it } from 'vitest';
import { isLoopbackAddress, localReadHost, normalizeAddress, parseStreamTarget, redactStreamKey, withoutStreamKey } from './stream-path';

describe('parseStreamTarget', () => {
  it('takes the stream name as the key under the app application, dropping a query', () => {
    expect(parseStreamTarget('app', 'abc123')).toEqual({ ok: true, streamKey: 'abc123' });
    expect(parseStreamTarget('app', 'abc123?bitrate=6000&x=1')).toEqual({ ok: true, streamKey: 'abc123' });
  });

  it('refuses other applications, empty keys and keys with a path in them', () => {
    expect(parseStreamTarget('live', 'abc123')).toMatchObject({ ok: false, reason: expect.stringContaining('rtmp://host/app/{stream_key}') });
    expect(parseStreamTarget('app', '')).toMatchObject({ ok: false });
    expect(parseStreamTarget('app', '?only=query')).toMatchObject({ ok: false });
    expect(parseStreamTarget('app', 'a/b')).toMatchObject({ ok: false });
  });
});

describe('redactStreamKey', () => {
  it('keeps four characters of a real-length key and none of a short one', () => {
    expect(redactStreamKey('0b1a6d3e-8c2f-4f4e-9b1c-7a2d5e6f8a90')).toBe('0b1a…');
    expect(redactStreamKey('short-key')).toBe('…');
  });

  it('removes every occurrence of the key from a text', () => {
    const key = '0b1a6d3e-8c2f-4f4e-9b1c-7a2d5e6f8a90';
    expect(withoutStreamKey(`key ${key} disabled (${key})`, key)).toBe('key 0b1a… disabled (0b1a…)');
    expect(withoutStreamKey('nothing to hide', '')).toBe('nothing to hide');
  });
});

describe('addresses', () => {
  it('unwraps IPv4-mapped IPv6 peers and recognises loopback', () => {
    expect(normalizeAddress('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(normalizeAddress('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(normalizeAddress(undefined)).toBe('');
    expect(isLoopbackAddress('::ffff:127.0.0.1')).toBe(true);
    expect(isLoopbackAddress('127.4.5.6')).toBe(true);
    expect(isLoopbackAddress('::1')).toBe(true);
    expect(isLoopbackAddress('192.0.2.7')).toBe(false);
    expect(isLoopbackAddress('::ffff:192.0.2.7')).toBe(false);
    expect(isLoopbackAddress('')).toBe(false);
  });

  it('reads from loopback whatever wildcard or loopback host the server listens on', () => {
    expect(localReadHost(undefined)).toBe('127.0.0.1');
    expect(localReadHost('0.0.0.0')).toBe('127.0.0.1');
    expect(localReadHost('::')).toBe('127.0.0.1');
    expect(localReadHost('127.0.0.1')).toBe('127.0.0.1');
    expect(localReadHost('::1')).toBe('[::1]');
    expect(() => localReadHost('192.0.2.7')).toThrow(/neither a wildcard nor a loopback/);
  });
});
