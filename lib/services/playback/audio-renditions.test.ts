import { describe, expect, test } from 'vitest';
import { buildAudioSegmentDurations } from '../../media/hls/audio-plan';
import { buildSegmentPlan } from '../../media/hls/segment-plan';
import { audioRenditionOf, audioRenditionsOf, timelineDuration } from './audio-renditions';
import type { PlaybackPlan } from './playback-plan';
import type { PlaybackTrack } from './playback-records';

const plan: PlaybackPlan = {
  video: buildSegmentPlan({ duration: 20, frameRate: 30 }),
  rungs: [],
  audio: { duration: 19.98, channels: 2, segmentDurations: buildAudioSegmentDurations(19.98) },
};

const track = (fields: Partial<PlaybackTrack> & { id: string }): PlaybackTrack => ({
  type: 'audio',
  name: fields.id,
  languageCode: null,
  primary: false,
  sourceStreamIndex: null,
  durationSeconds: null,
  maxChannels: 2,
  closedCaptions: false,
  textSource: null,
  ...fields,
});

const tracks = [
  track({ id: 'prim', primary: true, sourceStreamIndex: 0, durationSeconds: 19.98, maxChannels: 6 }),
  track({ id: 'mono', sourceStreamIndex: 1, durationSeconds: 12.5, maxChannels: 1 }),
  track({ id: 'surround', sourceStreamIndex: 2, durationSeconds: 19.9, maxChannels: 6 }),
  track({ id: 'added', durationSeconds: 20, maxChannels: 2 }),
  track({ id: 'subs', type: 'text' }),
];

describe('audioRenditionOf', () => {
  test('`audio` is the primary track, laid out by the plan and read from the first audio stream', () => {
    expect(audioRenditionOf({ plan, tracks }, 'audio')).toEqual({
      name: 'audio',
      duration: 19.98,
      channels: 2,
      segmentDurations: plan.audio!.segmentDurations,
      input: { kind: 'source', streamIndex: 0 },
    });
  });

  test('an older asset without track rows still has its `audio`; one without audio has none', () => {
    expect(audioRenditionOf({ plan, tracks: [] }, 'audio')?.name).toBe('audio');
    expect(audioRenditionOf({ plan: { ...plan, audio: null }, tracks }, 'audio')).toBeNull();
  });

  test('a mono primary plays in mono', () => {
    expect(audioRenditionOf({ plan: { ...plan, audio: { ...plan.audio!, channels: 1 } }, tracks }, 'audio')?.channels).toBe(1);
  });

  test('another audio stream of the source: its own duration, its stream, mono kept mono', () => {
    expect(audioRenditionOf({ plan, tracks }, 'audio-mono')).toEqual({
      name: 'audio-mono',
      duration: 12.5,
      channels: 1,
      segmentDurations: buildAudioSegmentDurations(12.5),
      input: { kind: 'source', streamIndex: 1 },
    });
    expect(audioRenditionOf({ plan, tracks }, 'audio-surround')).toMatchObject({ channels: 2, input: { kind: 'source', streamIndex: 2 } });
  });

  test('an added file is read from its own download', () => {
    expect(audioRenditionOf({ plan, tracks }, 'audio-added')).toMatchObject({ duration: 20, input: { kind: 'added', trackId: 'added' } });
  });

  test('unknown, not ready (absent from the list), primary by id, text tracks and video rungs are not audio renditions', () => {
    for (const name of ['audio-gone', 'audio-prim', 'audio-subs', '720p', 'audio-', 'subtitles-subs']) {
      expect(audioRenditionOf({ plan, tracks }, name), name).toBeNull();
    }
  });
});

test('audioRenditionsOf lists the primary first, then every other audio track in order', () => {
  expect(audioRenditionsOf({ plan, tracks }).map((rendition) => rendition.name)).toEqual(['audio', 'audio-mono', 'audio-surround', 'audio-added']);
});

test('added tracks align to the video, or to the primary audio of an audio-only asset', () => {
  expect(timelineDuration(plan)).toBe(20);
  expect(timelineDuration({ ...plan, video: null })).toBe(19.98);
});
