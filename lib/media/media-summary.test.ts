import { describe, expect, it } from 'vitest';
import type { AudioStreamInfo, MediaProbe, VideoStreamInfo } from './ffprobe';
import { aspectRatio, maxStoredFrameRate, primaryAudio, primaryVideo, resolutionTier } from './media-summary';

function video(overrides: Partial<VideoStreamInfo> = {}): VideoStreamInfo {
  return {
    index: 0,
    codec: 'h264',
    profile: 'High',
    pixelFormat: 'yuv420p',
    codedWidth: 1920,
    codedHeight: 1080,
    rotation: 0,
    displayWidth: 1920,
    displayHeight: 1080,
    frameRate: 30,
    constantFrameRate: true,
    bitRate: 5_000_000,
    durationSeconds: 10,
    isAttachedPicture: false,
    ...overrides,
  };
}

function audio(overrides: Partial<AudioStreamInfo> = {}): AudioStreamInfo {
  return { index: 1, codec: 'aac', channels: 2, channelLayout: 'stereo', sampleRate: 48000, bitRate: 128000, durationSeconds: 10, language: null, ...overrides };
}

function probe(streams: { video?: VideoStreamInfo[]; audio?: AudioStreamInfo[] }): MediaProbe {
  return { formatName: 'mov,mp4,m4a,3gp,3g2,mj2', probeScore: 100, durationSeconds: 10, sizeBytes: 1, bitRate: 1, startTimeSeconds: 0, video: streams.video ?? [], audio: streams.audio ?? [] };
}

const coverArt = video({ index: 1, codec: 'mjpeg', displayWidth: 3000, displayHeight: 3000, frameRate: null, isAttachedPicture: true });

describe('aspectRatio', () => {
  it.each([
    [1920, 1080, '16:9'],
    [640, 360, '16:9'],
    [853, 480, '16:9'],
    [854, 480, '16:9'],
    [1920, 1088, '16:9'],
    [1080, 1920, '9:16'],
    [640, 480, '4:3'],
    [480, 360, '4:3'],
    [1280, 800, '8:5'],
    [1000, 1000, '1:1'],
    [426, 240, '16:9'],
    [2560, 1080, '64:27'],
    [640, 352, '20:11'],
    [1998, 1080, '37:20'],
  ])('%i x %i → %s', (width, height, expected) => {
    expect(aspectRatio(width, height)).toBe(expected);
  });

  it('rejects degenerate sizes', () => {
    expect(() => aspectRatio(0, 1080)).toThrow(RangeError);
    expect(() => aspectRatio(1920, Number.NaN)).toThrow(RangeError);
  });
});

describe('resolutionTier', () => {
  it('buckets by display pixel count', () => {
    expect(resolutionTier(probe({ video: [video({ displayWidth: 640, displayHeight: 360 })] }), '2160p')).toBe('720p');
    expect(resolutionTier(probe({ video: [video({ displayWidth: 1280, displayHeight: 720 })] }), '2160p')).toBe('720p');
    expect(resolutionTier(probe({ video: [video({ displayWidth: 1280, displayHeight: 722 })] }), '2160p')).toBe('1080p');
    expect(resolutionTier(probe({ video: [video({ displayWidth: 1080, displayHeight: 1920 })] }), '2160p')).toBe('1080p');
    expect(resolutionTier(probe({ video: [video({ displayWidth: 2560, displayHeight: 1440 })] }), '2160p')).toBe('1440p');
    expect(resolutionTier(probe({ video: [video({ displayWidth: 3840, displayHeight: 2160 })] }), '2160p')).toBe('2160p');
  });

  it('caps at the requested maximum', () => {
    const uhd = probe({ video: [video({ displayWidth: 3840, displayHeight: 2160 })] });
    expect(resolutionTier(uhd, '1080p')).toBe('1080p');
    expect(resolutionTier(uhd, '1440p')).toBe('1440p');
    const sd = probe({ video: [video({ displayWidth: 640, displayHeight: 480 })] });
    expect(resolutionTier(sd, '1080p')).toBe('720p');
  });

  it('treats cover art as audio-only', () => {
    expect(resolutionTier(probe({ video: [coverArt], audio: [audio()] }), '2160p')).toBe('audio-only');
    expect(resolutionTier(probe({ audio: [audio()] }), '1080p')).toBe('audio-only');
  });
});

describe('maxStoredFrameRate', () => {
  it('rounds to three decimals and takes the fastest real video stream', () => {
    expect(maxStoredFrameRate(probe({ video: [video({ frameRate: 30000 / 1001 })] }))).toBe(29.97);
    expect(maxStoredFrameRate(probe({ video: [video({ frameRate: 51600 / 1841 })] }))).toBe(28.028);
    expect(maxStoredFrameRate(probe({ video: [video({ frameRate: 24 }), video({ index: 2, frameRate: 60 })] }))).toBe(60);
  });

  it('is -1 when unknown or audio-only', () => {
    expect(maxStoredFrameRate(probe({ video: [video({ frameRate: null })] }))).toBe(-1);
    expect(maxStoredFrameRate(probe({ video: [coverArt], audio: [audio()] }))).toBe(-1);
    expect(maxStoredFrameRate(probe({ audio: [audio()] }))).toBe(-1);
  });
});

describe('primary stream selectors', () => {
  it('skip attached pictures', () => {
    const real = video({ index: 2 });
    const p = probe({ video: [coverArt, real], audio: [audio({ index: 0 }), audio({ index: 3, language: 'fre' })] });
    expect(primaryVideo(p)).toBe(real);
    expect(primaryAudio(p)?.index).toBe(0);
  });

  it('return null when absent', () => {
    expect(primaryVideo(probe({ video: [coverArt] }))).toBeNull();
    expect(primaryAudio(probe({ video: [video()] }))).toBeNull();
  });
});
