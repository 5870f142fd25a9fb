import { expect, test } from 'vitest';
import { parseUserAgent } from './user-agent';

test('desktop Chrome on Linux', () => {
  expect(parseUserAgent('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36')).toEqual({
    browser: 'Chrome',
    browserVersion: '140.0.0.0',
    os: 'Linux',
    osVersion: null,
    deviceType: 'desktop',
  });
});

test('Safari on an iPhone is a phone', () => {
  const agent = parseUserAgent(
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  );
  expect(agent).toMatchObject({ browser: 'Mobile Safari', os: 'iOS', osVersion: '17.5', deviceType: 'phone' });
});

test('no User-Agent, nothing known', () => {
  expect(parseUserAgent(undefined)).toEqual({ browser: null, browserVersion: null, os: null, osVersion: null, deviceType: null });
  expect(parseUserAgent('curl/8.5.0').deviceType).toBeNull();
});
