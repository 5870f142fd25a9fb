import { describe, expect, test } from 'vitest';
import type { AudioTrack } from '../../schemas/asset';
import { sourceAudioTrackRows } from './source-audio-tracks';

const audio = (id: string, extra: Partial<AudioTrack> = {}): AudioTrack => ({ id, type: 'audio', duration: 10, max_channels: 2, primary: false, ...extra });

describe('sourceAudioTrackRows', () => {
  test('the first stream is the primary, "Default" with no language unless the first input names it', () => {
    const [primary] = sourceAudioTrackRows({ probedTracks: [audio('a')], titles: [null], firstInput: undefined });
    expect(primary).toMatchObject({ id: 'a', primary: true, name: 'Default', languageCode: null, sourceStreamIndex: 0, status: 'ready' });
    const [named] = sourceAudioTrackRows({ probedTracks: [audio('a')], titles: [null], firstInput: { language_code: 'en-US' } });
    expect(named).toMatchObject({ name: 'American English', languageCode: 'en-US' });
    const [explicit] = sourceAudioTrackRows({ probedTracks: [audio('a')], titles: [null], firstInput: { name: 'Original', language_code: 'fr' } });
    expect(explicit).toMatchObject({ name: 'Original', languageCode: 'fr' });
  });

  test('other streams are named by their title tag, else their language, else by position; names stay unique', () => {
    const rows = sourceAudioTrackRows({
      probedTracks: [audio('a', { language_code: 'eng' }), audio('b', { language_code: 'spa' }), audio('c', { language_code: 'ger' }), audio('d'), audio('e', { language_code: 'spa' })],
      titles: [null, null, "Director's commentary", null, null],
      firstInput: undefined,
    });
    expect(rows.map((row) => [row.name, row.languageCode, row.sourceStreamIndex])).toEqual([
      ['Default', 'en', 0],
      ['Spanish', 'es', 1],
      ["Director's commentary", 'de', 2],
      ['Audio 4', null, 3],
      ['Spanish (2)', 'es', 4],
    ]);
    expect(rows.filter((row) => row.primary)).toHaveLength(1);
  });
});
