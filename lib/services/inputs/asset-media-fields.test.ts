import { describe, expect, test } from 'vitest';
import type { MediaProbe } from '../../media/ffprobe';
import { assetMediaFields } from './asset-media-fields';

const video = {
  index: 0,
  codec: 'h264',
  profile: 'High',
  pixelFormat: 'yuv420p',
  codedWidth: 1920,
  codedHeight: 1080,
  rotation: 0 as const,
  displayWidth: 1920,
  displayHeight: 1080,
  frameRate: 29.97,
  constantFrameRate: true,
  bitRate: 5_000_000,
  durationSeconds: 60,
  isAttachedPicture: false,
};
const audio = {
  index: 1,
  codec: 'aac',
  channels: 2,
  channelLayout: 'stereo',
  sampleRate: 48_000,
  bitRate: 128_000,
  durationSeconds: 60.02,
  language: 'eng',
};
const probe = (overrides: Partial<MediaProbe>): MediaProbe => ({
  formatName: 'mov,mp4,m4a,3gp,3g2,mj2',
  probeScore: 100,
  durationSeconds: 60.021333,
  sizeBytes: 1,
  bitRate: 1,
  startTimeSeconds: 0,
  video: [video],
  audio: [audio],
  ...overrides,
});

let counter = 0;
const newTrackId = () => `track${++counter}`;

describe('assetMediaFields', () => {
  test('a 1080p H.264/AAC file', () => {
    const fields = assetMediaFields({ probe: probe({}), maxResolutionTier: '1080p', newTrackId });
    expect(fields).toMatchObject({ durationSeconds: 60.021333, aspectRatio: '16:9', resolutionTier: '1080p', maxFrameRate: 29.97 });
    expect(fields.tracks).toEqual([
      expect.objectContaining({ type: 'video', max_width: 1920, max_height: 1080, max_frame_rate: 29.97, duration: 60 }),
      expect.objectContaining({ type: 'audio', max_channels: 2, max_channel_layout: 'stereo', primary: true, language_code: 'eng' }),
    ]);
  });

  test('a 4K source is reported at the requested cap', () => {
    const uhd = { ...video, displayWidth: 3840, displayHeight: 2160, codedWidth: 3840, codedHeight: 2160 };
    expect(assetMediaFields({ probe: probe({ video: [uhd] }), maxResolutionTier: '1080p', newTrackId }).resolutionTier).toBe('1080p');
    expect(assetMediaFields({ probe: probe({ video: [uhd] }), maxResolutionTier: '2160p', newTrackId }).resolutionTier).toBe('2160p');
  });

  test('audio-only with two tracks: only the first is primary, 5.1(side) reported as 5.1', () => {
    const surround = { ...audio, index: 0, channels: 6, channelLayout: '5.1(side)', language: null };
    const fields = assetMediaFields({ probe: probe({ video: [], audio: [surround, audio] }), maxResolutionTier: '1080p', newTrackId });
    expect(fields.resolutionTier).toBe('audio-only');
    expect(fields.aspectRatio).toBeNull();
    expect(fields.tracks.map((track) => track.type === 'audio' && [track.primary, track.max_channel_layout])).toEqual([
      [true, '5.1'],
      [false, 'stereo'],
    ]);
  });

  test('test assets are capped at 10 s', () => {
    const fields = assetMediaFields({ probe: probe({}), maxResolutionTier: '1080p', newTrackId, durationCapSeconds: 10 });
    expect(fields.durationSeconds).toBe(10);
    expect(fields.tracks.every((track) => track.duration === 10)).toBe(true);
  });
});
