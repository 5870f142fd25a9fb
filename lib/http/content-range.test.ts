import { describe, expect, test } from 'vitest';
import { parseUploadContentRange, receivedRangeHeader } from './content-range';

describe('parseUploadContentRange', () => {
  test('reads a chunk range with an inclusive end', () => {
    expect(parseUploadContentRange('bytes 0-262143/1048576')).toEqual({
      ok: true,
      range: { kind: 'chunk', start: 0, end: 262143, total: 1048576 },
    });
    expect(parseUploadContentRange('bytes 1048575-1048575/1048576')).toEqual({
      ok: true,
      range: { kind: 'chunk', start: 1048575, end: 1048575, total: 1048576 },
    });
  });

  test('reads a status query', () => {
    expect(parseUploadContentRange('bytes */5000')).toEqual({ ok: true, range: { kind: 'status', total: 5000 } });
  });

  test.each([
    'bytes 0-99',
    'bytes=0-99/100',
    'items 0-99/100',
    'bytes 0-99/*',
    'bytes 10-5/100',
    'bytes 0-100/100',
    'bytes -1-5/100',
    '',
  ])('rejects %j with a message', (header) => {
    const result = parseUploadContentRange(header);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toContain('Content-Range');
  });
});

describe('receivedRangeHeader', () => {
  test('names the stored bytes, or nothing when none are stored', () => {
    expect(receivedRangeHeader(0)).toEqual({});
    expect(receivedRangeHeader(262144)).toEqual({ range: 'bytes=0-262143' });
  });
});
