import { describe, expect, test } from 'vitest';
import { parseSrtStreamId } from './srt-stream-id';

describe('SRT stream id', () => {
  const key = '831b5bde-cd8a-5bc4-115d-4ba34b19f481';

  test("Mux's form is the bare stream key", () => {
    expect(parseSrtStreamId(key)).toEqual({ ok: true, streamKey: key });
  });

  test("SRT's access-control form names the key in r and must publish", () => {
    expect(parseSrtStreamId(`#!::r=${key},m=publish`)).toEqual({ ok: true, streamKey: key });
    expect(parseSrtStreamId(`#!::m=publish,r=${key}`)).toEqual({ ok: true, streamKey: key });
    expect(parseSrtStreamId(`#!::r=${key}`)).toEqual({ ok: true, streamKey: key });
    expect(parseSrtStreamId(`#!::r=${key},m=request`)).toMatchObject({ ok: false, reason: expect.stringMatching(/only takes publishers/) });
  });

  test('a percent-encoded stream id is decoded', () => {
    expect(parseSrtStreamId(encodeURIComponent(`#!::r=${key},m=publish`))).toEqual({ ok: true, streamKey: key });
    expect(parseSrtStreamId('%E0%A4%A')).toMatchObject({ ok: false });
  });

  test('a missing or malformed stream id is refused with a reason', () => {
    expect(parseSrtStreamId(null)).toMatchObject({ ok: false, reason: expect.stringMatching(/no streamid/) });
    expect(parseSrtStreamId('')).toMatchObject({ ok: false });
    expect(parseSrtStreamId('../../etc/passwd')).toMatchObject({ ok: false, reason: expect.stringMatching(/malformed/) });
    expect(parseSrtStreamId('#!::m=publish')).toMatchObject({ ok: false });
  });
});
