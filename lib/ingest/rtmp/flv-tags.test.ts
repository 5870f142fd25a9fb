import { describe, expect, it } from 'vitest';
import {
  audioCodecProblem,
  describeAacSequenceHeader,
  describeAvcSequenceHeader,
  isAacSequenceHeader,
  isAvcSequenceHeader,
  isVideoKeyframe,
  videoCodecProblem,
} from './flv-tags';

// The AVC sequence header libx264 (ultrafast, 640x360) sent through ffmpeg's FLV muxer, and the
// AAC-LC 44.1 kHz stereo one: FLV framing plus the decoder configuration record.
const AVC_SEQUENCE_HEADER = Buffer.from('17000000000142c01effe100196742c01eda0280bfe5c044000003000400000300f23c58ba8001000468ce3c80', 'hex');
const AAC_SEQUENCE_HEADER = Buffer.from('af001210', 'hex');

describe('codec checks', () => {
  it('accepts H.264 and AAC tags of any kind', () => {
    expect(videoCodecProblem(AVC_SEQUENCE_HEADER)).toBeUndefined();
    expect(videoCodecProblem(Buffer.from([0x27, 0x01]))).toBeUndefined();
    expect(audioCodecProblem(AAC_SEQUENCE_HEADER)).toBeUndefined();
    expect(audioCodecProblem(Buffer.from([0xaf, 0x01, 0x21]))).toBeUndefined();
  });

  it('names the codec it refuses and what to publish instead', () => {
    expect(videoCodecProblem(Buffer.from([0x12]))).toBe('video codec Sorenson H.263 not supported: publish H.264 + AAC');
    expect(videoCodecProblem(Buffer.from([0x1c]))).toBe('video codec HEVC not supported: publish H.264 + AAC');
    expect(videoCodecProblem(Buffer.from([0x90, ...Buffer.from('hvc1')]))).toBe("video codec 'hvc1' (enhanced RTMP) not supported: publish H.264 + AAC");
    expect(audioCodecProblem(Buffer.from([0x2f]))).toBe('audio codec MP3 not supported: publish H.264 + AAC');
    expect(audioCodecProblem(Buffer.from([0xdf]))).toBe('audio codec Opus not supported: publish H.264 + AAC');
    expect(audioCodecProblem(Buffer.from([0x9f]))).toBe('audio codec id 9 not supported: publish H.264 + AAC');
  });

  it('tells sequence headers and keyframes from other tags', () => {
    expect(isAvcSequenceHeader(AVC_SEQUENCE_HEADER)).toBe(true);
    expect(isAvcSequenceHeader(Buffer.from('1701000000', 'hex'))).toBe(false);
    expect(isAacSequenceHeader(AAC_SEQUENCE_HEADER)).toBe(true);
    expect(isAacSequenceHeader(Buffer.from('af0121', 'hex'))).toBe(false);
    expect(isVideoKeyframe(Buffer.from([0x17, 0x01]))).toBe(true);
    expect(isVideoKeyframe(Buffer.from([0x27, 0x01]))).toBe(false);
  });
});

describe('describing sequence headers', () => {
  it('reads size, profile, level and the CODECS string of H.264', () => {
    expect(describeAvcSequenceHeader(AVC_SEQUENCE_HEADER, 30)).toEqual({
      codec: 'h264', width: 640, height: 360, frameRate: 30, profile: 'Baseline', level: 3, codecString: 'avc1.42c01e',
    });
    expect(describeAvcSequenceHeader(AVC_SEQUENCE_HEADER, undefined)).not.toHaveProperty('frameRate');
  });

  it('reads rate, channels and the CODECS string of AAC', () => {
    expect(describeAacSequenceHeader(AAC_SEQUENCE_HEADER)).toEqual({
      codec: 'aac', sampleRate: 44100, channels: 2, profile: 'LC', codecString: 'mp4a.40.2',
    });
  });

  it('throws on a header it cannot read', () => {
    expect(() => describeAvcSequenceHeader(Buffer.from('1700000000', 'hex'), undefined)).toThrow();
    expect(() => describeAacSequenceHeader(Buffer.from('af00', 'hex'))).toThrow();
  });
});
