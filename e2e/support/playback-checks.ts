import { expect } from '@playwright/test';
import { httpGet, parseMediaPlaylist, type MediaPlaylist } from './hls';
import { audioPresentationSpan, H264_PROFILE_IDC, presentationSpan, probeFrames, readAvcC, type SourceInfo } from './media-probe';
import type { LoadedMultivariant, NamedVariant } from './playback';

// Assertions shared by the playback specs. They use expect.soft so one run reports every broken
// rendition, and every message names the URL that was checked.

/** Audio durations may differ from the source by this much (AAC framing / priming). */
export const AUDIO_TOLERANCE_S = 0.025;

export type Expectation = { playbackId: string; hasVideo: boolean; hasAudio: boolean };

/** Header tags, EXT-X-MEDIA and variant attributes/URIs of a multivariant playlist. */
export const expectMultivariantShape = (playlist: LoadedMultivariant, { playbackId, hasVideo, hasAudio }: Expectation): void => {
  const where = `${playlist.url}\n${playlist.text}`;
  expect.soft(playlist.version, `EXT-X-VERSION of ${where}`).toBe(7);
  expect.soft(playlist.independentSegments, `EXT-X-INDEPENDENT-SEGMENTS in ${where}`).toBe(true);
  const audioMedia = playlist.media.filter((media) => media.attributes.TYPE === 'AUDIO');
  if (!hasVideo) {
    expect.soft(playlist.variants.length, `audio-only: one variant in ${where}`).toBe(1);
    const [variant] = playlist.variants;
    expect.soft(variant?.uri, where).toBe(`${playbackId}/audio.m3u8`);
    expect.soft(variant?.codecs, where).toEqual(['mp4a.40.2']);
    expect.soft(variant?.resolution, `audio-only variant has no RESOLUTION: ${where}`).toBeUndefined();
    expect.soft(variant?.bandwidth ?? 0, where).toBeGreaterThan(0);
    return;
  }
  if (hasAudio) {
    // One per audio track of the source; the primary first, and the only default.
    expect.soft(audioMedia.length, `an EXT-X-MEDIA TYPE=AUDIO per audio track in ${where}`).toBeGreaterThanOrEqual(1);
    for (const media of audioMedia) expect.soft(media.attributes['GROUP-ID'], where).toBe('audio');
    expect.soft(audioMedia[0]?.uri, where).toBe(`${playbackId}/audio.m3u8`);
    expect.soft(audioMedia.map((media) => media.attributes.DEFAULT), `DEFAULT=YES on the primary only in ${where}`).toEqual(
      audioMedia.map((_, index) => (index === 0 ? 'YES' : 'NO')),
    );
  } else {
    expect.soft(playlist.media, `video-only source: no EXT-X-MEDIA in ${where}`).toEqual([]);
  }
  expect.soft(playlist.video.length, `at least one video variant in ${where}`).toBeGreaterThan(0);
  expect.soft(playlist.audioOnly, `no audio-only variant next to video in ${where}`).toEqual([]);
  for (const variant of playlist.video) {
    const context = `variant ${variant.name} of ${where}`;
    expect.soft(variant.uri, context).toBe(`${playbackId}/${variant.name}.m3u8`);
    expect.soft(variant.name, context).toMatch(/^\d+p$/);
    expect.soft(variant.bandwidth, `BANDWIDTH of ${context}`).toBeGreaterThan(0);
    // Declared once some of the rung's segments are encoded (what they were encoded at).
    if (variant.averageBandwidth !== undefined) {
      expect.soft(variant.averageBandwidth, `AVERAGE-BANDWIDTH of ${context}`).toBeGreaterThan(0);
      expect.soft(variant.averageBandwidth, `AVERAGE-BANDWIDTH <= BANDWIDTH in ${context}`).toBeLessThanOrEqual(variant.bandwidth);
    }
    expect.soft(variant.resolution, `RESOLUTION of ${context}`).toBeDefined();
    expect.soft(variant.frameRate ?? 0, `FRAME-RATE of ${context}`).toBeGreaterThan(0);
    const avc = variant.codecs.filter((codec) => /^avc1\.[0-9a-f]{6}$/i.test(codec));
    expect.soft(avc.length, `one avc1.PPCCLL codec in ${context}`).toBe(1);
    expect.soft(avc[0] ?? '', `High profile in ${context}`).toMatch(/^avc1\.64/i);
    if (hasAudio) {
      expect.soft(variant.codecs.length, `CODECS of ${context}`).toBe(2);
      expect.soft(variant.codecs, `CODECS of ${context}`).toContain('mp4a.40.2');
      expect.soft(variant.audioGroup, `AUDIO of ${context}`).toBe('audio');
    } else {
      expect.soft(variant.codecs, `CODECS of ${context}`).toEqual(avc);
      expect.soft(variant.audioGroup, `no AUDIO group in ${context}`).toBeUndefined();
    }
  }
};

/** Fetches and parses a media (rendition) playlist, asserting a 200. */
export const loadMediaPlaylist = async (url: string): Promise<MediaPlaylist & { url: string }> => {
  const response = await httpGet(url);
  expect(response.status, `GET ${url}: ${response.text.slice(0, 300)}`).toBe(200);
  return { ...parseMediaPlaylist(response.text, url), url };
};

export type RenditionReport = {
  name: string;
  url: string;
  decodedDuration?: number;
  expectedDuration?: number;
  frames?: number;
  size?: string;
  codec?: string;
  profile?: string;
  level?: number;
  decodeSeconds?: number;
};

const frameTolerance = (variant: NamedVariant, source: SourceInfo): number => {
  const fromPlaylist = variant.frameRate && variant.frameRate > 0 ? 1 / variant.frameRate : 1 / 30;
  return Math.max(fromPlaylist, source.video?.maxFrameDuration ?? 0) + 0.001;
};

/** Is the source constant frame rate (frame gaps within 0.5 %)? */
export const isConstantFrameRate = (source: SourceInfo): boolean =>
  !!source.video && source.video.maxFrameDuration / source.video.minFrameDuration < 1.005;

/**
 * Plays one video rendition with real ffmpeg (decode errors), measures it with ffprobe (duration,
 * frame sizes, profile/level, B-frames) and compares the CODECS attribute with the init segment.
 */
export const verifyVideoRendition = async (variant: NamedVariant, source: SourceInfo): Promise<RenditionReport> => {
  const report: RenditionReport = { name: variant.name, url: variant.url };
  const context = `rendition ${variant.name} (${variant.url})`;
  const playlist = await loadMediaPlaylist(variant.url);
  expect.soft(playlist.map, `EXT-X-MAP in ${context}`).toBeDefined();

  // One pass: ffprobe decodes every frame it lists and reports decode errors at -v error, as an
  // ffmpeg decode to null would (a second full decode of every rendition cost the suite ~1 min).
  const started = Date.now();
  const { streams, frames, stderr } = await probeFrames(variant.url, { select: 'v:0' });
  report.decodeSeconds = (Date.now() - started) / 1000;
  expect.soft(stderr.trim(), `ffprobe -v error output while decoding ${context}`).toBe('');
  const stream = streams.find((candidate) => candidate.codec_type === 'video');
  report.frames = frames.length;
  report.profile = stream?.profile;
  report.level = stream?.level;
  expect.soft(stream?.codec_name, `codec of ${context}`).toBe('h264');
  expect.soft(stream?.profile, `H.264 profile of ${context}`).toBe('High');
  expect.soft(stream?.has_b_frames, `has_b_frames of ${context}`).toBe(0);
  expect.soft(frames.length, `decoded frames of ${context}`).toBeGreaterThan(0);
  const bFrames = frames.filter((frame) => frame.pictType === 'B').length;
  expect.soft(bFrames, `B-frames in ${context}`).toBe(0);

  const sizes = new Set(frames.map((frame) => `${frame.width}x${frame.height}`));
  report.size = [...sizes].join(',');
  const attribute = variant.resolution ? `${variant.resolution.width}x${variant.resolution.height}` : 'none';
  expect.soft([...sizes], `decoded frame sizes of ${context} vs RESOLUTION=${attribute}`).toEqual([attribute]);

  const span = presentationSpan(frames);
  report.decodedDuration = span;
  report.expectedDuration = source.video?.duration;
  const tolerance = frameTolerance(variant, source);
  expect
    .soft(Math.abs(span - (source.video?.duration ?? Number.NaN)), `decoded duration ${span.toFixed(4)} s of ${context} vs source ${source.video?.duration.toFixed(4)} s (tolerance ${tolerance.toFixed(4)} s)`)
    .toBeLessThanOrEqual(tolerance);

  if (isConstantFrameRate(source) && variant.frameRate) {
    const sourceRate = 1 / source.video!.minFrameDuration;
    expect.soft(Math.abs(variant.frameRate - sourceRate), `FRAME-RATE=${variant.frameRate} of ${context} vs source ${sourceRate.toFixed(3)} fps`).toBeLessThan(0.05);
  }

  // CODECS must describe the bytes: compare with the avcC record of the init segment and ffprobe.
  const avcCodec = variant.codecs.find((codec) => codec.toLowerCase().startsWith('avc1.'));
  report.codec = avcCodec;
  if (playlist.map) {
    const init = await httpGet(playlist.map.url);
    expect.soft(init.status, `GET ${playlist.map.url}`).toBe(200);
    const avcC = readAvcC(init.body);
    expect.soft(avcC, `avcC in ${playlist.map.url}`).toBeDefined();
    if (avcC && avcCodec) {
      expect.soft(avcCodec.toLowerCase(), `CODECS of ${variant.name} vs avcC of ${playlist.map.url}`).toBe(avcC.codec);
      if (stream?.profile) expect.soft(avcC.profile, `avcC profile_idc vs ffprobe "${stream.profile}"`).toBe(H264_PROFILE_IDC[stream.profile]);
      if (stream?.level !== undefined) expect.soft(avcC.level, `avcC level_idc vs ffprobe level`).toBe(stream.level);
    }
  }
  if (avcCodec && stream?.profile && stream.level !== undefined) {
    const profileIdc = Number.parseInt(avcCodec.slice(5, 7), 16);
    const levelIdc = Number.parseInt(avcCodec.slice(9, 11), 16);
    expect.soft(profileIdc, `CODECS ${avcCodec} profile vs ffprobe "${stream.profile}" (${context})`).toBe(H264_PROFILE_IDC[stream.profile]);
    expect.soft(levelIdc, `CODECS ${avcCodec} level vs ffprobe level ${stream.level} (${context})`).toBe(stream.level);
  }
  // BANDWIDTH is a true peak (RFC 8216bis: over runs of segments lasting 0.5–1.5 × the target
  // duration): no such segment's video alone passes it, less the 128 kb/s audio it counts.
  const videoPeak = variant.bandwidth - (variant.audioGroup ? AUDIO_BANDWIDTH : 0);
  for (const segment of playlist.segments.filter((candidate) => candidate.duration >= 0.5 * (playlist.targetDuration ?? 0))) {
    const media = await httpGet(segment.url);
    const bitrate = Math.round((media.body.length * 8) / segment.duration);
    expect.soft(bitrate, `bit rate of ${segment.uri} (${segment.duration} s) against BANDWIDTH=${variant.bandwidth} of ${context}`).toBeLessThanOrEqual(videoPeak);
  }
  return report;
};

/** What every variant with audio counts for its 128 kb/s AAC rendition. */
export const AUDIO_BANDWIDTH = 128_000;

/** Plays the audio rendition with real ffmpeg and checks AAC-LC 48 kHz, stereo (mono for a mono source), and its duration. */
export const verifyAudioRendition = async (url: string, source: SourceInfo): Promise<RenditionReport> => {
  const report: RenditionReport = { name: 'audio', url };
  const context = `audio rendition (${url})`;
  const playlist = await loadMediaPlaylist(url);
  expect.soft(playlist.map, `EXT-X-MAP in ${context}`).toBeDefined();
  const started = Date.now();
  const { streams, frames, stderr } = await probeFrames(url, { select: 'a:0' });
  report.decodeSeconds = (Date.now() - started) / 1000;
  expect.soft(stderr.trim(), `ffprobe -v error output while decoding ${context}`).toBe('');
  const stream = streams.find((candidate) => candidate.codec_type === 'audio');
  report.frames = frames.length;
  report.profile = stream?.profile;
  expect.soft(stream?.codec_name, `codec of ${context}`).toBe('aac');
  expect.soft(stream?.profile, `AAC profile of ${context}`).toBe('LC');
  expect.soft(stream?.sample_rate, `sample rate of ${context}`).toBe('48000');
  const sourceChannels = source.streams.find((candidate) => candidate.codec_type === 'audio')?.channels;
  expect.soft(stream?.channels, `channels of ${context} (the source's first audio stream has ${sourceChannels})`).toBe(sourceChannels === 1 ? 1 : 2);
  const span = audioPresentationSpan(frames);
  report.decodedDuration = span;
  const nearest = [...source.audioDurations].sort((a, b) => Math.abs(a - span) - Math.abs(b - span))[0];
  report.expectedDuration = nearest;
  expect
    .soft(Math.abs(span - (nearest ?? Number.NaN)), `decoded duration ${span.toFixed(4)} s of ${context} vs source audio ${source.audioDurations.map((value) => value.toFixed(4)).join('/')} s`)
    .toBeLessThanOrEqual(AUDIO_TOLERANCE_S);
  return report;
};
