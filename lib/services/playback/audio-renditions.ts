import { audioOutputChannels, buildAudioSegmentDurations, type AudioOutputChannels } from '../../media/hls/audio-plan';
import { audioRenditionName, parseAudioRenditionName, PRIMARY_AUDIO_RENDITION } from '../../media/names';
import type { PlaybackPlan } from './playback-plan';
import type { PlaybackTrack } from './playback-records';

// Every ready audio track of an asset plays as one HLS rendition: the primary track as `audio` (the
// name and folder it always had, laid out by the plan), every other one as `audio-{trackId}`, laid
// out from its track row. An audio stream of the source is read from the source; an added audio
// file from its own download, padded or cut to the video's length.

export type AudioRendition = {
  /** The rendition's name: its playlist is `/{PLAYBACK_ID}/{name}.m3u8`, its files `hls/{name}/`. */
  name: string;
  duration: number;
  channels: AudioOutputChannels;
  segmentDurations: number[];
  input: { kind: 'source'; streamIndex: number } | { kind: 'added'; trackId: string };
};

type PlayableAudio = { plan: PlaybackPlan; tracks: PlaybackTrack[] };

/** What an added audio track is aligned to: the video's duration (the primary audio's on an audio-only asset). */
export const timelineDuration = (plan: PlaybackPlan): number => plan.video?.duration ?? plan.audio?.duration ?? 0;

const primaryRendition = (plan: PlaybackPlan): AudioRendition | null =>
  plan.audio
    ? {
        name: PRIMARY_AUDIO_RENDITION,
        duration: plan.audio.duration,
        // The plan's, not the track row's: assets made before tracks had rows were planned in stereo.
        channels: audioOutputChannels(plan.audio.channels),
        segmentDurations: plan.audio.segmentDurations,
        input: { kind: 'source', streamIndex: 0 },
      }
    : null;

const trackRendition = (plan: PlaybackPlan, track: PlaybackTrack): AudioRendition | null => {
  const duration = track.durationSeconds ?? timelineDuration(plan);
  if (!(duration > 0)) return null;
  return {
    name: audioRenditionName(track),
    duration,
    channels: audioOutputChannels(track.maxChannels),
    segmentDurations: buildAudioSegmentDurations(duration),
    input: track.sourceStreamIndex === null ? { kind: 'added', trackId: track.id } : { kind: 'source', streamIndex: track.sourceStreamIndex },
  };
};

const isOtherAudioTrack = (track: PlaybackTrack) => track.type === 'audio' && !track.primary;

/** The audio rendition called `name`, if the asset has it and its track is ready; else null. */
export const audioRenditionOf = ({ plan, tracks }: PlayableAudio, name: string): AudioRendition | null => {
  const parsed = parseAudioRenditionName(name);
  if (!parsed) return null;
  if (parsed.primary) return primaryRendition(plan);
  const track = tracks.find((candidate) => isOtherAudioTrack(candidate) && candidate.id === parsed.trackId);
  return track ? trackRendition(plan, track) : null;
};

/** Every audio rendition of the asset: the primary first, then its other ready audio tracks in order. */
export const audioRenditionsOf = ({ plan, tracks }: PlayableAudio): AudioRendition[] =>
  [primaryRendition(plan), ...tracks.filter(isOtherAudioTrack).map((track) => trackRendition(plan, track))].filter(
    (rendition): rendition is AudioRendition => rendition !== null,
  );
