import { describe, expect, test } from 'vitest';
import { decodeTextFile } from './decode-text';

const utf16 = (text: string, endian: 'le' | 'be', bom: boolean) => {
  const le = Buffer.from(text, 'utf16le');
  const bytes = endian === 'le' ? le : Buffer.from(le).swap16();
  const mark = endian === 'le' ? [0xff, 0xfe] : [0xfe, 0xff];
  return bom ? Buffer.concat([Buffer.from(mark), bytes]) : bytes;
};

const SAMPLE = 'WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nÇa va? — 日本語 ♪\n';

describe('decodeTextFile', () => {
  test('UTF-8 with and without a BOM; the BOM is dropped', () => {
    expect(decodeTextFile(Buffer.from(SAMPLE))).toEqual({ ok: true, text: SAMPLE, encoding: 'utf-8' });
    expect(decodeTextFile(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(SAMPLE)]))).toEqual({ ok: true, text: SAMPLE, encoding: 'utf-8' });
  });

  test('UTF-16 little and big endian, with a BOM or recognised by their zero bytes', () => {
    for (const endian of ['le', 'be'] as const) {
      for (const bom of [true, false]) {
        expect(decodeTextFile(utf16(SAMPLE, endian, bom)), `${endian} bom=${bom}`).toEqual({ ok: true, text: SAMPLE, encoding: `utf-16${endian}` });
      }
    }
  });

  test('bytes that are not UTF-8 are read as Windows-1252 (curly quotes, euro, accents)', () => {
    const bytes = Buffer.from([0x93, 0x43, 0x61, 0x66, 0xe9, 0x94, 0x20, 0x80, 0x35, 0x0a]);
    expect(decodeTextFile(bytes)).toEqual({ ok: true, text: '“Café” €5\n', encoding: 'windows-1252' });
  });

  test('a DOS end-of-file mark at the end is dropped', () => {
    expect(decodeTextFile(Buffer.from('1\n00:00:01,000 --> 00:00:02,000\nHi\n\u001a'))).toMatchObject({ ok: true, text: '1\n00:00:01,000 --> 00:00:02,000\nHi\n' });
  });

  test('empty, binary and control characters are refused with where', () => {
    expect(decodeTextFile(Buffer.alloc(0))).toEqual({ ok: false, reason: 'the file is empty' });
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52]);
    expect(decodeTextFile(png)).toEqual({ ok: false, reason: 'the file is not text (a zero byte at offset 8); a WebVTT or SRT file is expected' });
    expect(decodeTextFile(Buffer.from('WEBVTT\n\nok\n\u0007bell\n'))).toEqual({
      ok: false,
      reason: 'line 4: the file is not text (control character U+0007); a WebVTT or SRT file is expected',
    });
  });

  test('a UTF-16 BOM followed by an odd number of bytes is not valid text', () => {
    expect(decodeTextFile(Buffer.from([0xff, 0xfe, 0x41, 0x00, 0x42]))).toEqual({ ok: false, reason: 'the file is not valid UTF-16LE text' });
  });
});
