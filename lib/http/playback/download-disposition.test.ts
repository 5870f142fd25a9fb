import { describe, expect, test } from 'vitest';
import { downloadDisposition, downloadFileName } from './download-disposition';

describe('downloadFileName', () => {
  test("appends the file's extension unless the name has it", () => {
    expect(downloadFileName('cats', 'highest.mp4')).toBe('cats.mp4');
    expect(downloadFileName('cats.mp4', 'highest.mp4')).toBe('cats.mp4');
    expect(downloadFileName('Cats.MP4', 'highest.mp4')).toBe('Cats.MP4');
    expect(downloadFileName('song', 'audio.m4a')).toBe('song.m4a');
    expect(downloadFileName('clip.mp4', 'audio.m4a')).toBe('clip.mp4.m4a');
  });

  test('keeps only the last path part, without control characters, quotes or leading dots', () => {
    expect(downloadFileName('../../etc/passwd', 'highest.mp4')).toBe('passwd.mp4');
    expect(downloadFileName('a\\b\\c', 'highest.mp4')).toBe('c.mp4');
    expect(downloadFileName('my "best"\r\nclip', 'highest.mp4')).toBe('my bestclip.mp4');
    expect(downloadFileName('...hidden', 'highest.mp4')).toBe('hidden.mp4');
  });

  test('falls back to the file name when nothing is left', () => {
    expect(downloadFileName('', 'highest.mp4')).toBe('highest.mp4');
    expect(downloadFileName('"/', 'audio.m4a')).toBe('audio.m4a');
  });

  test('is cut to a sane length', () => {
    expect(downloadFileName('x'.repeat(1000), 'highest.mp4')).toHaveLength(204);
  });
});

describe('downloadDisposition', () => {
  test('an ASCII name is quoted as is', () => {
    expect(downloadDisposition('cats', 'highest.mp4')).toBe('attachment; filename="cats.mp4"');
  });

  test('a non-ASCII name gets an ASCII stand-in and an RFC 8187 filename*', () => {
    expect(downloadDisposition('chats été', 'highest.mp4')).toBe(`attachment; filename="chats _t_.mp4"; filename*=UTF-8''chats%20%C3%A9t%C3%A9.mp4`);
  });
});
