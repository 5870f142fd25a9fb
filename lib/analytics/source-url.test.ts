import { expect, test } from 'vitest';
import { playbackIdInSourceUrl, withoutQuery } from './source-url';

const ID = 'a'.repeat(20) + 'B01';

test('the playback ID is read from the path of any host', () => {
  expect(playbackIdInSourceUrl(`https://stream.example.com/${ID}.m3u8?token=secret`)).toBe(ID);
  expect(playbackIdInSourceUrl(`http://localhost:3000/${ID}.m3u8`)).toBe(ID);
  expect(playbackIdInSourceUrl(`/${ID}.m3u8`)).toBe(ID);
  expect(playbackIdInSourceUrl(`https://x/${ID}/low.m3u8`)).toBeNull();
  expect(playbackIdInSourceUrl('https://x/short.m3u8')).toBeNull();
  expect(playbackIdInSourceUrl(null)).toBeNull();
});

test('query string and fragment are dropped', () => {
  expect(withoutQuery('https://x/a.m3u8?token=abc#t=1')).toBe('https://x/a.m3u8');
  expect(withoutQuery('https://x/page#frag')).toBe('https://x/page');
  expect(withoutQuery('https://x/page')).toBe('https://x/page');
});
