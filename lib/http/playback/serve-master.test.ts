import { describe, expect, test } from 'vitest';
import { attachmentDisposition, matchMasterPath } from './serve-master';

describe('matchMasterPath', () => {
  test('only the master file names under /master/{assetId}/', () => {
    expect(matchMasterPath('/master/abc123/mezzanine.mp4')).toEqual({ assetId: 'abc123', fileName: 'mezzanine.mp4' });
    expect(matchMasterPath('/master/abc123/mezzanine.m4a')).toEqual({ assetId: 'abc123', fileName: 'mezzanine.m4a' });
    expect(matchMasterPath('/master/abc123/source')).toBeNull();
    expect(matchMasterPath('/master/../secrets.json/mezzanine.mp4')).toBeNull();
    expect(matchMasterPath('/abc123.m3u8')).toBeNull();
  });
});

describe('attachmentDisposition', () => {
  test('an ASCII fallback without quotes or backslashes, and the exact UTF-8 name', () => {
    expect(attachmentDisposition('my clip.mp4')).toBe(`attachment; filename="my clip.mp4"; filename*=UTF-8''my%20clip.mp4`);
    expect(attachmentDisposition("it's (1).mp4")).toBe(`attachment; filename="it's (1).mp4"; filename*=UTF-8''it%27s%20%281%29.mp4`);
    expect(attachmentDisposition('a\r\nb.mp4')).toBe(`attachment; filename="a__b.mp4"; filename*=UTF-8''a%0D%0Ab.mp4`);
    expect(attachmentDisposition('été "x".mp4')).toBe(`attachment; filename="_t_ _x_.mp4"; filename*=UTF-8''%C3%A9t%C3%A9%20%22x%22.mp4`);
  });
});
