import { describe, expect, test } from 'vitest';
import { parseBasicCredentials } from './basic-credentials';

const basic = (value: string) => `Basic ${Buffer.from(value).toString('base64')}`;

describe('parseBasicCredentials', () => {
  test('parses id and secret, keeping colons inside the secret', () => {
    expect(parseBasicCredentials(basic('abc:def:ghi'))).toEqual({ id: 'abc', secret: 'def:ghi' });
  });
  test.each([[null], [''], ['Bearer abc'], [basic('nocolon')], [basic(':secret')], ['Basic !!!']])(
    'rejects %s',
    (header) => {
      expect(parseBasicCredentials(header)).toBeNull();
    },
  );
});
