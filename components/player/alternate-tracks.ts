import type Hls from 'hls.js';
import type { MediaPlaylist } from 'hls.js';

// The audio renditions and subtitles hls.js found in the multivariant playlist, as menu options.
// Read from hls.js itself after each of its track events, so the menus always show what it plays.

export type TrackOption = { index: number; label: string };
export type AlternateTracks = {
  audio: TrackOption[];
  audioTrack: number;
  subtitles: TrackOption[];
  /** -1 when subtitles are off. */
  subtitleTrack: number;
};

export const NO_ALTERNATE_TRACKS: AlternateTracks = { audio: [], audioTrack: -1, subtitles: [], subtitleTrack: -1 };

const optionLabel = (track: MediaPlaylist): string => {
  const lang = track.lang && track.lang !== 'und' ? track.lang : undefined;
  const name = track.name || lang || `Track ${track.id + 1}`;
  return lang && lang !== name ? `${name} (${lang})` : name;
};

const toOptions = (tracks: MediaPlaylist[]): TrackOption[] => tracks.map((track, index) => ({ index, label: optionLabel(track) }));

export const readAlternateTracks = (hls: Hls): AlternateTracks => ({
  audio: toOptions(hls.audioTracks),
  audioTrack: hls.audioTrack,
  subtitles: toOptions(hls.subtitleTracks),
  subtitleTrack: hls.subtitleTrack,
});

/** Calls onChange with the current tracks whenever hls.js lists or switches audio or subtitle tracks. */
export const watchAlternateTracks = (hls: Hls, events: typeof Hls.Events, onChange: (tracks: AlternateTracks) => void): void => {
  const report = () => onChange(readAlternateTracks(hls));
  for (const event of [
    events.MANIFEST_PARSED,
    events.AUDIO_TRACKS_UPDATED,
    events.AUDIO_TRACK_SWITCHED,
    events.SUBTITLE_TRACKS_UPDATED,
    events.SUBTITLE_TRACK_SWITCH,
  ] as const) {
    hls.on(event, report);
  }
};

export const chooseSubtitles = (hls: Hls, index: number): void => {
  hls.subtitleDisplay = index >= 0;
  hls.subtitleTrack = index;
};
