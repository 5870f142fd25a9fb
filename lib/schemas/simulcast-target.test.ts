import { describe, expect, test } from 'vitest';
import {
  createSimulcastTargetSchema,
  normalizeSimulcastTarget,
  serializeSimulcastTarget,
  SIMULCAST_URL_MAX_LENGTH,
  simulcastUrlProblem,
} from './simulcast-target';

/** The messages a body is refused with, as `field: message`. */
const refusals = (body: unknown): string[] => {
  const parsed = createSimulcastTargetSchema.safeParse(body);
  if (parsed.success) throw new Error(`expected a refusal for ${JSON.stringify(body)}`);
  return parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};

describe('simulcastUrlProblem', () => {
  test('RTMP(S) app URLs and complete SRT URLs pass', () => {
    for (const url of [
      'rtmp://a.rtmp.youtube.com/live2',
      'rtmps://live-api-s.facebook.com:443/rtmp/',
      'rtmp://127.0.0.1:1935/live',
      'rtmp://[2001:db8::1]/app',
      'srt://srt.example.com:9000?streamid=abc&passphrase=0123456789',
      'SRT://srt.example.com:9000',
    ]) {
      expect(simulcastUrlProblem(url), url).toBeUndefined();
    }
  });

  test('another scheme, no host, no app, no SRT port, credentials or no URL at all are refused, saying why', () => {
    expect(simulcastUrlProblem('https://live.example.com/app')).toBe('must be an rtmp://, rtmps:// or srt:// URL');
    expect(simulcastUrlProblem('rtmpt://live.example.com/app')).toBe('must be an rtmp://, rtmps:// or srt:// URL');
    expect(simulcastUrlProblem('live.example.com/app')).toMatch(/^is not a valid URL/);
    expect(simulcastUrlProblem('rtmp:///app')).toBe('must include a host name');
    expect(simulcastUrlProblem('rtmp:live')).toBe('must include a host name');
    expect(simulcastUrlProblem('rtmp://live.example.com')).toMatch(/must include the application name/);
    expect(simulcastUrlProblem('rtmps://live.example.com:443/')).toMatch(/must include the application name/);
    expect(simulcastUrlProblem('srt://srt.example.com?streamid=abc')).toMatch(/must include the port/);
    expect(simulcastUrlProblem('rtmp://user:secret@live.example.com/app')).toBe('must not contain a user name or password');
  });
});

describe('createSimulcastTargetSchema', () => {
  test('url, stream_key and passthrough as Mux takes them', () => {
    const body = { url: 'rtmp://live.example.com/app', stream_key: 'live_1234?bandwidth=test', passthrough: 'YouTube' };
    expect(createSimulcastTargetSchema.parse(body)).toEqual(body);
    expect(createSimulcastTargetSchema.parse({ url: 'srt://srt.example.com:9000?streamid=abc' })).toEqual({ url: 'srt://srt.example.com:9000?streamid=abc' });
  });

  test('a missing or bad url, an overlong or unprintable key, an overlong passthrough: one message each, by field', () => {
    expect(refusals({})).toEqual(['url: is required: an rtmp://, rtmps:// or srt:// URL']);
    expect(refusals({ url: 'ftp://live.example.com/app' })).toEqual(['url: must be an rtmp://, rtmps:// or srt:// URL']);
    expect(refusals({ url: `rtmp://live.example.com/${'a'.repeat(SIMULCAST_URL_MAX_LENGTH)}` })).toEqual([`url: must be at most ${SIMULCAST_URL_MAX_LENGTH} characters`]);
    expect(refusals({ url: 'rtmp://live.example.com/app', stream_key: 'k'.repeat(256) })).toEqual(['stream_key: must be at most 255 characters']);
    expect(refusals({ url: 'rtmp://live.example.com/app', stream_key: 'my key' })).toEqual(['stream_key: must be printable ASCII characters without spaces']);
    expect(refusals({ url: 'rtmp://live.example.com/app', stream_key: 'key\n' })).toEqual(['stream_key: must be printable ASCII characters without spaces']);
    expect(refusals({ url: 'rtmp://live.example.com/app', passthrough: 'p'.repeat(256) })).toEqual(['passthrough: must be at most 255 characters']);
  });

  test('an SRT URL takes no stream key: it carries its stream id itself', () => {
    expect(refusals({ url: 'srt://srt.example.com:9000?streamid=abc', stream_key: 'abc' })).toEqual([expect.stringMatching(/^stream_key: is only used with rtmp/)]);
  });
});

describe('normalizeSimulcastTarget and serializeSimulcastTarget', () => {
  test('stored with the scheme in lower case (how the restreamer tells SRT from RTMP), an empty key as none', () => {
    expect(normalizeSimulcastTarget({ url: 'RTMP://live.example.com/app', stream_key: '' })).toEqual({ url: 'rtmp://live.example.com/app', streamKey: null, passthrough: null });
    expect(normalizeSimulcastTarget({ url: 'rtmp://live.example.com/app', stream_key: 'k', passthrough: 'p' })).toEqual({ url: 'rtmp://live.example.com/app', streamKey: 'k', passthrough: 'p' });
  });

  test('optional fields only when set; error_severity only while errored', () => {
    const idle = { id: 'S', url: 'rtmp://live.example.com/app', streamKey: null, passthrough: null, status: 'idle', errorSeverity: null };
    expect(serializeSimulcastTarget(idle)).toEqual({ id: 'S', status: 'idle', url: 'rtmp://live.example.com/app' });
    expect(serializeSimulcastTarget({ ...idle, status: 'errored', errorSeverity: 'fatal', streamKey: 'k', passthrough: 'p' })).toEqual({
      id: 'S',
      status: 'errored',
      url: 'rtmp://live.example.com/app',
      stream_key: 'k',
      passthrough: 'p',
      error_severity: 'fatal',
    });
    expect(serializeSimulcastTarget({ ...idle, status: 'broadcasting', errorSeverity: 'normal' })).not.toHaveProperty('error_severity');
  });
});
