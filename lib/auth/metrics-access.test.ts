import { describe, expect, test } from 'vitest';
import { decideMetricsAccess, isLoopbackAddress } from './metrics-access';

const TOKEN = 'scrape-me-if-you-can-0123456789';

describe('isLoopbackAddress', () => {
  test.each(['127.0.0.1', '127.255.0.9', '::1', '::ffff:127.0.0.1', '::ffff:127.3.2.1'])('%s is loopback', (address) => {
    expect(isLoopbackAddress(address)).toBe(true);
  });
  test.each(['10.0.0.1', '192.168.1.5', '::ffff:10.1.2.3', '::ffff:128.0.0.1', '::', '0.0.0.0', 'fe80::1', '2001:db8::1', '', 'localhost', undefined])(
    '%s is not',
    (address) => {
      expect(isLoopbackAddress(address)).toBe(false);
    },
  );
});

describe('decideMetricsAccess without METRICS_TOKEN', () => {
  test('loopback clients are allowed, with or without credentials', () => {
    expect(decideMetricsAccess({ configuredToken: null, authorization: undefined, remoteAddress: '127.0.0.1' })).toBe('allowed');
    expect(decideMetricsAccess({ configuredToken: null, authorization: 'Bearer whatever', remoteAddress: '::1' })).toBe('allowed');
    expect(decideMetricsAccess({ configuredToken: null, authorization: undefined, remoteAddress: '::ffff:127.0.0.1' })).toBe('allowed');
  });
  test('a request a proxy on this machine forwarded is forbidden: it names another client', () => {
    expect(decideMetricsAccess({ configuredToken: null, authorization: undefined, remoteAddress: '127.0.0.1', forwarded: true })).toBe('forbidden');
  });
  test('anyone else is forbidden, whatever they send', () => {
    expect(decideMetricsAccess({ configuredToken: null, authorization: undefined, remoteAddress: '203.0.113.7' })).toBe('forbidden');
    expect(decideMetricsAccess({ configuredToken: null, authorization: `Bearer ${TOKEN}`, remoteAddress: '10.0.0.2' })).toBe('forbidden');
    // A socket that already closed has no address.
    expect(decideMetricsAccess({ configuredToken: null, authorization: undefined, remoteAddress: undefined })).toBe('forbidden');
  });
});

describe('decideMetricsAccess with METRICS_TOKEN', () => {
  const decide = (authorization: string | undefined, remoteAddress = '203.0.113.7') =>
    decideMetricsAccess({ configuredToken: TOKEN, authorization, remoteAddress });

  test('the token as a Bearer credential is allowed from anywhere', () => {
    expect(decide(`Bearer ${TOKEN}`)).toBe('allowed');
    expect(decide(`bearer ${TOKEN}`)).toBe('allowed');
    expect(decide(`Bearer  ${TOKEN} `)).toBe('allowed');
  });
  test('is required from loopback too', () => {
    expect(decide(undefined, '127.0.0.1')).toBe('unauthorized');
    expect(decide(`Bearer ${TOKEN}`, '127.0.0.1')).toBe('allowed');
  });
  test.each([
    ['no header', undefined],
    ['empty', ''],
    ['wrong token', 'Bearer not-the-metrics-token-at-all'],
    ['a prefix of it', `Bearer ${TOKEN.slice(0, -1)}`],
    ['it with more after', `Bearer ${TOKEN}x`],
    ['another scheme', `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}`],
    ['the bare token', TOKEN],
    ['two tokens', `Bearer ${TOKEN} ${TOKEN}`],
  ])('%s is unauthorized', (_name, authorization) => {
    expect(decide(authorization)).toBe('unauthorized');
  });
});
