import { describe, expect, test } from 'vitest';
import { validateDestinationUrl } from './validate-input-url';

// Only IP literals and local names here: a host name would be looked up in DNS.

const refusal = (url: string, allowPrivate = false) =>
  validateDestinationUrl(url, { allowPrivate, field: 'url' }).then(
    () => undefined,
    (error: { type?: string; messages?: string[] }) => ({ type: error.type, messages: error.messages }),
  );

describe('validateDestinationUrl', () => {
  test('a public address passes under either policy', async () => {
    expect(await refusal('rtmp://93.184.216.34/live')).toBeUndefined();
    expect(await refusal('srt://[2606:2800:220:1:248:1893:25c8:1946]:9000?streamid=s')).toBeUndefined();
  });

  test('private, loopback and local hosts are refused as input URLs are, however the address is spelled', async () => {
    for (const url of ['rtmp://127.0.0.1/app', 'rtmps://10.1.2.3:443/app', 'srt://[::1]:9000', 'rtmp://127.1/app', 'rtmp://2130706433/app', 'rtmp://0x7f.1/app']) {
      expect(await refusal(url), url).toEqual({ type: 'invalid_parameters', messages: [expect.stringMatching(/^url: .*private or loopback address/)] });
    }
    expect(await refusal('rtmp://localhost:1935/app')).toEqual({ type: 'invalid_parameters', messages: [expect.stringMatching(/^url: .*local or internal host name/)] });
    expect(await refusal('rtmp://ingest.internal/app')).toEqual({ type: 'invalid_parameters', messages: [expect.stringMatching(/^url: .*local or internal host name/)] });
  });

  test('ALLOW_PRIVATE_INPUT_URLS lets them through', async () => {
    expect(await refusal('rtmp://127.0.0.1:1935/app', true)).toBeUndefined();
    expect(await refusal('rtmp://localhost/app', true)).toBeUndefined();
  });
});
