import av from 'node-media-server/src/node_core_av.js';

// RTMP audio and video messages carry FLV tag bodies. Their first byte names the codec, so a
// publisher's codecs are known from its first packets, long before any decoder sees them.

export type RtmpVideoInfo = {
  codec: 'h264';
  width: number;
  height: number;
  frameRate?: number;
  profile?: string;
  /** As H.264 levels are written: 3.1 for level_idc 31. */
  level?: number;
  /** RFC 6381 form for a playlist's CODECS attribute, e.g. avc1.64001f. */
  codecString: string;
};

export type RtmpAudioInfo = {
  codec: 'aac';
  sampleRate: number;
  channels: number;
  profile?: string;
  /** RFC 6381 form, e.g. mp4a.40.2. */
  codecString: string;
};

export const SUPPORTED_CODECS_HINT = 'publish H.264 + AAC';

const FLV_VIDEO_AVC = 7;
const FLV_AUDIO_AAC = 10;
const FLV_KEYFRAME = 1;
const FLV_PACKET_SEQUENCE_HEADER = 0;

const VIDEO_CODEC_NAMES: Record<number, string> = {
  1: 'JPEG',
  2: 'Sorenson H.263',
  3: 'Screen Video',
  4: 'On2 VP6',
  5: 'On2 VP6 with alpha',
  6: 'Screen Video 2',
  7: 'H.264',
  12: 'HEVC',
  13: 'AV1',
};

const AUDIO_CODEC_NAMES: Record<number, string> = {
  0: 'PCM',
  1: 'ADPCM',
  2: 'MP3',
  3: 'PCM',
  4: 'Nellymoser',
  5: 'Nellymoser',
  6: 'Nellymoser',
  7: 'G.711 A-law',
  8: 'G.711 mu-law',
  10: 'AAC',
  11: 'Speex',
  13: 'Opus',
  14: 'MP3',
};

// Enhanced RTMP sets the top bit of the first byte and names the codec with a FourCC instead.
const isEnhancedVideo = (body: Buffer): boolean => ((body[0] ?? 0) & 0x80) !== 0;

export const isVideoKeyframe = (body: Buffer): boolean => !isEnhancedVideo(body) && ((body[0] ?? 0) >> 4) === FLV_KEYFRAME;

export function isAvcSequenceHeader(body: Buffer): boolean {
  return body.length > 5 && (body[0] ?? 0) === ((FLV_KEYFRAME << 4) | FLV_VIDEO_AVC) && body[1] === FLV_PACKET_SEQUENCE_HEADER;
}

export function isAacSequenceHeader(body: Buffer): boolean {
  return body.length > 2 && ((body[0] ?? 0) >> 4) === FLV_AUDIO_AAC && body[1] === FLV_PACKET_SEQUENCE_HEADER;
}

/** Why this video tag cannot be ingested, or undefined for H.264. */
export function videoCodecProblem(body: Buffer): string | undefined {
  let name: string;
  if (isEnhancedVideo(body)) {
    name = `'${body.subarray(1, 5).toString('latin1')}' (enhanced RTMP)`;
  } else {
    const codecId = (body[0] ?? 0) & 0x0f;
    if (codecId === FLV_VIDEO_AVC) return undefined;
    name = VIDEO_CODEC_NAMES[codecId] ?? `id ${codecId}`;
  }
  return `video codec ${name} not supported: ${SUPPORTED_CODECS_HINT}`;
}

/** Why this audio tag cannot be ingested, or undefined for AAC. */
export function audioCodecProblem(body: Buffer): string | undefined {
  const codecId = (body[0] ?? 0) >> 4;
  if (codecId === FLV_AUDIO_AAC) return undefined;
  return `audio codec ${AUDIO_CODEC_NAMES[codecId] ?? `id ${codecId}`} not supported: ${SUPPORTED_CODECS_HINT}`;
}

const hexByte = (value: number): string => value.toString(16).padStart(2, '0');

/** Reads an AVC sequence header tag (5 bytes of FLV framing, then the AVCDecoderConfigurationRecord). */
export function describeAvcSequenceHeader(body: Buffer, frameRate: number | undefined): RtmpVideoInfo {
  const config = av.readAVCSpecificConfig(body);
  if (!config || !(config.width > 0) || !(config.height > 0)) throw new Error('unreadable H.264 sequence header');
  const [profileIdc = 0, constraints = 0, levelIdc = 0] = body.subarray(6, 9);
  return {
    codec: 'h264',
    width: config.width,
    height: config.height,
    ...(frameRate !== undefined && Number.isFinite(frameRate) && frameRate > 0 ? { frameRate } : {}),
    ...(av.getAVCProfileName(config) ? { profile: av.getAVCProfileName(config) } : {}),
    ...(levelIdc > 0 ? { level: levelIdc / 10 } : {}),
    codecString: `avc1.${hexByte(profileIdc)}${hexByte(constraints)}${hexByte(levelIdc)}`,
  };
}

/** Reads an AAC sequence header tag (2 bytes of FLV framing, then the AudioSpecificConfig). */
export function describeAacSequenceHeader(body: Buffer): RtmpAudioInfo {
  const config = av.readAACSpecificConfig(body);
  if (!(config.sample_rate > 0) || !(config.object_type > 0)) throw new Error('unreadable AAC sequence header');
  const profile = av.getAACProfileName(config);
  return {
    codec: 'aac',
    sampleRate: config.sample_rate,
    // chan_config 0 means "described in the stream"; stereo is what encoders send in practice.
    channels: config.channels || 2,
    ...(profile ? { profile } : {}),
    codecString: `mp4a.40.${config.sbr > 0 ? (config.ps > 0 ? 29 : 5) : config.object_type}`,
  };
}
