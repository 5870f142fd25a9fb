import { describe, expect, test } from 'vitest';
import { defaultSubtitlesTrack, playlistTracks } from './playlist-tracks';
import type { PlaybackTrack } from './playback-records';

const track = (id: string, extra: Partial<PlaybackTrack>): PlaybackTrack => ({
  id,
  type: 'text',
  name: id,
  languageCode: null,
  primary: false,
  sourceStreamIndex: null,
  durationSeconds: null,
  maxChannels: null,
  closedCaptions: false,
  textSource: 'uploaded',
  ...extra,
});

describe('default_subtitles_lang', () => {
  const tracks = [track('gb', { languageCode: 'en-GB' }), track('us', { languageCode: 'en-US' }), track('fr', { languageCode: 'fr' })];
  test('exact tag first, else the same language, else none', () => {
    expect(defaultSubtitlesTrack(tracks, 'en-US')?.id).toBe('us');
    expect(defaultSubtitlesTrack(tracks, 'EN-us')?.id).toBe('us');
    expect(defaultSubtitlesTrack(tracks, 'en')?.id).toBe('gb');
    expect(defaultSubtitlesTrack(tracks, 'fr-CA')?.id).toBe('fr');
    expect(defaultSubtitlesTrack(tracks, 'de')).toBeUndefined();
    expect(defaultSubtitlesTrack(tracks, undefined)).toBeUndefined();
  });
});

describe('playlistTracks', () => {
  const plan = { video: null, rungs: [], audio: { duration: 10, channels: 2, segmentDurations: [4, 4, 2] } };
  const uriOf = (name: string) => `pid/${name}.m3u8`;

  test("a live recording's captions: generated_live until generated_live_final is ready, then only the final", () => {
    const live = track('live', { textSource: 'generated_live', languageCode: 'en' });
    const final = track('final', { textSource: 'generated_live_final', languageCode: 'en' });
    expect(playlistTracks({ plan, tracks: [live], uriOf }).subtitles.map((media) => media.uri)).toEqual(['pid/subtitles-live.m3u8']);
    expect(playlistTracks({ plan, tracks: [live, final], uriOf, defaultSubtitlesLang: 'en' }).subtitles).toEqual([
      { uri: 'pid/subtitles-final.m3u8', name: 'final', language: 'en', closedCaptions: false, isDefault: true },
    ]);
  });

  test('assets without track rows list their one audio rendition as Default', () => {
    expect(playlistTracks({ plan, tracks: [], uriOf }).audio).toEqual([{ uri: 'pid/audio.m3u8', name: 'Default', channels: 2, isDefault: true }]);
  });

  test('audio tracks: the primary first and default, mono stays mono; subtitles with the chosen default', () => {
    const { audio, subtitles } = playlistTracks({
      plan,
      tracks: [
        track('es', { type: 'audio', name: 'Español', languageCode: 'es', maxChannels: 1, sourceStreamIndex: 1 }),
        track('main', { type: 'audio', name: 'English', languageCode: 'en', maxChannels: 6, primary: true, sourceStreamIndex: 0 }),
        track('subs', { name: 'English CC', languageCode: 'en', closedCaptions: true }),
        track('auto', { name: 'Generated', languageCode: 'auto', textSource: 'generated_vod' }),
      ],
      uriOf,
      defaultSubtitlesLang: 'en',
    });
    expect(audio).toEqual([
      { uri: 'pid/audio.m3u8', name: 'English', language: 'en', channels: 2, isDefault: true },
      { uri: 'pid/audio-es.m3u8', name: 'Español', language: 'es', channels: 1, isDefault: false },
    ]);
    expect(subtitles).toEqual([
      { uri: 'pid/subtitles-subs.m3u8', name: 'English CC', language: 'en', closedCaptions: true, isDefault: true },
      { uri: 'pid/subtitles-auto.m3u8', name: 'Generated', closedCaptions: false, isDefault: false },
    ]);
  });
});
