import { describe, expect, test } from 'vitest';
import { canonicalLanguageCode, compareTracks, languageName, serializeTrack, type TrackRecord } from './track';

const row = (id: string, extra: Partial<TrackRecord>): TrackRecord => ({
  id,
  type: 'audio',
  status: 'ready',
  name: id,
  languageCode: null,
  primary: false,
  sourceStreamIndex: null,
  durationSeconds: null,
  maxChannels: null,
  maxChannelLayout: null,
  textType: null,
  textSource: null,
  closedCaptions: false,
  passthrough: null,
  errorType: null,
  errorMessagesJson: null,
  createdAt: new Date(1000),
  ...extra,
});

describe('tracks', () => {
  test('language tags: ISO 639-2 stream tags become BCP-47, und and garbage become nothing', () => {
    expect(canonicalLanguageCode('eng')).toBe('en');
    expect(canonicalLanguageCode('ger')).toBe('de');
    expect(canonicalLanguageCode('pt-br')).toBe('pt-BR');
    expect(canonicalLanguageCode('und')).toBeUndefined();
    expect(canonicalLanguageCode('not a tag')).toBeUndefined();
    expect(languageName('es')).toBe('Spanish');
    expect(languageName('xx')).toBeUndefined();
  });

  test('order: audio before text, the primary first, source streams in order, then by creation', () => {
    const tracks = [
      row('text', { type: 'text', createdAt: new Date(0) }),
      row('added', { createdAt: new Date(500) }),
      row('second', { sourceStreamIndex: 1 }),
      row('primary', { primary: true, sourceStreamIndex: 0 }),
      row('added-later', { createdAt: new Date(2000) }),
    ];
    expect([...tracks].sort(compareTracks).map((track) => track.id)).toEqual(['primary', 'second', 'added', 'added-later', 'text']);
  });

  test('wire shapes: text tracks carry their text fields and no duration; errored tracks their error', () => {
    expect(serializeTrack(row('t', { type: 'text', textType: 'subtitles', textSource: 'uploaded', languageCode: 'fr', status: 'preparing' }))).toEqual({
      id: 't',
      type: 'text',
      text_type: 'subtitles',
      text_source: 'uploaded',
      status: 'preparing',
      name: 't',
      language_code: 'fr',
      closed_captions: false,
    });
    expect(serializeTrack(row('a', { durationSeconds: 1.23456789, maxChannels: 2, primary: true, status: 'errored', errorMessagesJson: '["bad"]' }))).toMatchObject({
      duration: 1.234568,
      max_channels: 2,
      primary: true,
      error: { type: 'invalid_input', messages: ['bad'] },
    });
  });
});
