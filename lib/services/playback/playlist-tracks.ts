import { audioOutputChannels } from '../../media/hls/audio-plan';
import type { AudioMedia, SubtitlesMedia } from '../../media/hls/playlists';
import { audioRenditionName, PRIMARY_AUDIO_RENDITION, subtitlesRenditionName } from '../../media/names';
import { compareTrackKinds } from '../../schemas/track';
import type { PlaybackPlan } from './playback-plan';
import type { PlaybackTrack } from './playback-records';

/**
 * The best text track for `default_subtitles_lang`: the exact tag first, else the closest one of
 * the same language (`en` → `en-US`), as Mux picks it.
 */
export const defaultSubtitlesTrack = (tracks: PlaybackTrack[], wanted: string | undefined): PlaybackTrack | undefined => {
  if (!wanted) return undefined;
  const lower = wanted.toLowerCase();
  const language = lower.split('-')[0];
  const text = tracks.filter((track) => track.type === 'text' && track.languageCode);
  return (
    text.find((track) => track.languageCode!.toLowerCase() === lower) ??
    text.find((track) => track.languageCode!.toLowerCase().split('-')[0] === language)
  );
};

// The audio group and the subtitles group of a multivariant playlist. Assets prepared before
// tracks had rows have no audio rows: their one audio rendition is listed as "Default".
export const playlistTracks = ({
  plan,
  tracks,
  uriOf,
  defaultSubtitlesLang,
}: {
  plan: PlaybackPlan;
  tracks: PlaybackTrack[];
  uriOf: (rendition: string) => string;
  defaultSubtitlesLang?: string;
}): { audio: AudioMedia[]; subtitles: SubtitlesMedia[] } => {
  const audioTracks = tracks.filter((track) => track.type === 'audio').sort(compareTrackKinds);
  const audio: AudioMedia[] =
    audioTracks.length > 0
      ? audioTracks.map((track, position) => ({
          uri: uriOf(audioRenditionName(track)),
          name: track.name,
          ...(track.languageCode && { language: track.languageCode }),
          channels: audioOutputChannels(track.maxChannels),
          isDefault: position === 0,
        }))
      : plan.audio
        ? [{ uri: uriOf(PRIMARY_AUDIO_RENDITION), name: 'Default', channels: plan.audio.channels, isDefault: true }]
        : [];
  // As on Mux: once a live recording's re-transcribed captions are ready, only they are played.
  const hasFinalCaptions = tracks.some((track) => track.textSource === 'generated_live_final');
  const listed = tracks.filter((track) => !(hasFinalCaptions && track.textSource === 'generated_live'));
  const chosen = defaultSubtitlesTrack(listed, defaultSubtitlesLang);
  const subtitles: SubtitlesMedia[] = listed
    .filter((track) => track.type === 'text')
    .map((track) => ({
      uri: uriOf(subtitlesRenditionName(track.id)),
      name: track.name,
      ...(track.languageCode && track.languageCode !== 'auto' && { language: track.languageCode }),
      closedCaptions: track.closedCaptions,
      isDefault: track === chosen,
    }));
  return { audio, subtitles };
};
