import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MediaInputError } from './media-errors';
import { maxStoredFrameRate, primaryAudio, primaryVideo, resolutionTier } from './media-summary';
import { probeMedia } from './probe-media';
import { FFPROBE, SHARED_MEDIA, aac, ffmpeg, x264 } from './test-support/media-fixtures';
import { ChildProcessSet } from './child-process-set';

const children = new ChildProcessSet();

let dir = '';
const file = (name: string): string => join(dir, name);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keyframe-probe-'));
  await ffmpeg(
    '-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=30:duration=2',
    '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000:duration=2',
    ...x264, ...aac, '-shortest', '-movflags', '+faststart', file('normal.mp4'),
  );
  // ffmpeg 5.1 turns the legacy rotate tag into a display matrix that ffprobe reports as +90 (counter-clockwise).
  await ffmpeg('-i', file('normal.mp4'), '-c', 'copy', '-metadata:s:v:0', 'rotate=90', file('portrait.mp4'));
  // Left half white, right half black: shows which way a rotation turns the picture.
  await ffmpeg(
    '-f', 'lavfi', '-i', 'color=c=white:size=160x180:rate=10:duration=0.5,pad=320:180:0:0:black',
    ...x264, file('halves.mp4'),
  );
  await ffmpeg('-i', file('halves.mp4'), '-c', 'copy', '-metadata:s:v:0', 'rotate=90', file('halves-rotated.mp4'));
  await ffmpeg('-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000:duration=2', ...aac, file('audio.m4a'));
  await ffmpeg('-f', 'lavfi', '-i', 'color=c=red:size=300x300', '-frames:v', '1', file('cover.png'));
  await ffmpeg(
    '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=44100:duration=2', '-i', file('cover.png'),
    '-map', '0:a', '-map', '1:v', '-c:a', 'libmp3lame', '-c:v', 'mjpeg', '-disposition:v:0', 'attached_pic', file('cover.mp3'),
  );
  await ffmpeg(
    '-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=30:duration=2', ...x264, file('moov-at-end.mp4'),
  );
  const moovAtEnd = await readFile(file('moov-at-end.mp4'));
  await writeFile(file('moov-missing.mp4'), moovAtEnd.subarray(0, Math.floor(moovAtEnd.length * 0.6)));
  await writeFile(file('short.txt'), 'hello, this is not a video\n');
  // Long enough for ffmpeg's tty demuxer to claim a .txt file as "ANSI art" video.
  await writeFile(file('readme.txt'), Array.from({ length: 200 }, (_, i) => `line ${i} of a readme`).join('\n'));
  await writeFile(file('empty.mp4'), '');
  // Two frames of raw H.263 are too few for ffmpeg to be sure of the format (probe score 25): the
  // guess random bytes also get about once in 200 files, decoding one garbage frame.
  await ffmpeg('-f', 'lavfi', '-i', 'testsrc=size=352x288:rate=25', '-frames:v', '2', '-c:v', 'h263', '-f', 'h263', file('guessed.mp4'));
}, 60_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const probe = (inputPath: string, signal?: AbortSignal) => probeMedia({ ffprobePath: FFPROBE, inputPath, signal, children });

describe('probeMedia on generated files', () => {
  it('reads a landscape H.264 + AAC MP4', async () => {
    const result = await probe(file('normal.mp4'));
    expect(result.formatName).toContain('mp4');
    expect(result.durationSeconds).toBeGreaterThan(1.9);
    expect(result.durationSeconds).toBeLessThan(2.2);
    expect(result.sizeBytes).toBeGreaterThan(1000);
    expect(result.video).toHaveLength(1);
    expect(primaryVideo(result)).toMatchObject({
      codec: 'h264',
      pixelFormat: 'yuv420p',
      codedWidth: 640,
      codedHeight: 360,
      rotation: 0,
      displayWidth: 640,
      displayHeight: 360,
      frameRate: 30,
      isAttachedPicture: false,
    });
    expect(primaryAudio(result)).toMatchObject({ codec: 'aac', channels: 2, channelLayout: 'stereo', sampleRate: 48000 });
    expect(resolutionTier(result, '1080p')).toBe('720p');
    expect(maxStoredFrameRate(result)).toBe(30);
  });

  it('reads a rotated MP4 as portrait', async () => {
    const video = primaryVideo(await probe(file('portrait.mp4')));
    expect(video).toMatchObject({ codedWidth: 640, codedHeight: 360, rotation: 270, displayWidth: 360, displayHeight: 640 });
  });

  it('uses the same rotation direction as ffmpeg auto-rotation', async () => {
    const video = primaryVideo(await probe(file('halves-rotated.mp4')));
    expect(video?.rotation).toBe(270);
    const raw = file('halves-rotated.gray');
    await ffmpeg('-i', file('halves-rotated.mp4'), '-frames:v', '1', '-vf', 'scale=2:2:flags=area', '-f', 'rawvideo', '-pix_fmt', 'gray', raw);
    const [topLeft = 0, topRight = 0, bottomLeft = 0, bottomRight = 0] = await readFile(raw);
    // Turning 270° clockwise (= 90° counter-clockwise) moves the white left half to the bottom.
    expect(bottomLeft + bottomRight).toBeGreaterThan(topLeft + topRight + 200);
  });

  it('reads an audio-only m4a', async () => {
    const result = await probe(file('audio.m4a'));
    expect(result.video).toEqual([]);
    expect(result.audio).toHaveLength(1);
    expect(result.audio[0]).toMatchObject({ codec: 'aac', sampleRate: 48000, channels: 2 });
    expect(resolutionTier(result, '2160p')).toBe('audio-only');
    expect(maxStoredFrameRate(result)).toBe(-1);
  });

  it('treats an MP3 with cover art as audio-only', async () => {
    const result = await probe(file('cover.mp3'));
    expect(result.formatName).toBe('mp3');
    expect(result.video).toHaveLength(1);
    expect(result.video[0]).toMatchObject({ codec: 'mjpeg', isAttachedPicture: true, codedWidth: 300 });
    expect(primaryVideo(result)).toBeNull();
    expect(primaryAudio(result)).toMatchObject({ codec: 'mp3', sampleRate: 44100 });
    expect(resolutionTier(result, '2160p')).toBe('audio-only');
  });

  it.each([
    ['short.txt', /^The input file could not be read as audio or video \(ffprobe: Invalid data found when processing input\)$/],
    ['readme.txt', /looks like a text file/],
    ['empty.mp4', /^The input file is empty \(0 bytes\)$/],
    ['moov-missing.mp4', /could not be read as audio or video \(ffprobe: moov atom not found\)/],
    ['cover.png', /still image/],
    ['guessed.mp4', /^The input file is not in a recognised audio or video format$/],
  ])('rejects %s with a readable MediaInputError', async (name, message) => {
    const error: unknown = await probe(file(name)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MediaInputError);
    expect((error as Error).name).toBe('MediaInputError');
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain(dir);
  });

  it('fails with a plain Error (not the user’s fault) when ffprobe is missing', async () => {
    const error: unknown = await probeMedia({ ffprobePath: '/nonexistent/ffprobe', inputPath: file('normal.mp4'), children }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(MediaInputError);
    expect((error as Error).message).toContain('/nonexistent/ffprobe');
  });

  it('rejects with the abort reason when aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('upload cancelled'));
    await expect(probe(file('normal.mp4'), controller.signal)).rejects.toThrow('upload cancelled');
  });
});

describe.skipIf(!existsSync(SHARED_MEDIA))('probeMedia on shared real-world media', () => {
  const shared = (name: string): string => join(SHARED_MEDIA, name);

  it('london_h264_aac_360p_17s.mp4', async () => {
    const result = await probe(shared('london_h264_aac_360p_17s.mp4'));
    expect(result.durationSeconds).toBeCloseTo(17.064, 2);
    expect(primaryVideo(result)).toMatchObject({ codec: 'h264', displayWidth: 640, displayHeight: 360, rotation: 0 });
    expect(primaryVideo(result)?.frameRate).toBeCloseTo(30.006, 2);
    expect(primaryAudio(result)).toMatchObject({ codec: 'aac', sampleRate: 48000, channels: 2, language: 'eng' });
  });

  it('android_h264_aac_720p_5s_rot90.mp4 (ffprobe rotation +90 = 270 clockwise)', async () => {
    const video = primaryVideo(await probe(shared('android_h264_aac_720p_5s_rot90.mp4')));
    expect(video).toMatchObject({ codedWidth: 1280, codedHeight: 720, rotation: 270, displayWidth: 720, displayHeight: 1280 });
  });

  it('iphone_hevc_hlg_portrait_vfr.mov (ffprobe rotation -90 = 90 clockwise, mebx tracks ignored)', async () => {
    const result = await probe(shared('iphone_hevc_hlg_portrait_vfr.mov'));
    expect(result.video).toHaveLength(1);
    expect(result.audio).toHaveLength(1);
    expect(primaryVideo(result)).toMatchObject({
      codec: 'hevc',
      profile: 'Main 10',
      pixelFormat: 'yuv420p10le',
      rotation: 90,
      displayWidth: 1080,
      displayHeight: 1920,
    });
    expect(maxStoredFrameRate(result)).toBe(28.028);
    expect(resolutionTier(result, '2160p')).toBe('1080p');
  });

  it('outfoxing_the_fox_kevin_macleod.mp3 is audio-only', async () => {
    const result = await probe(shared('outfoxing_the_fox_kevin_macleod.mp3'));
    expect(result.durationSeconds).toBeCloseTo(97.44, 1);
    expect(resolutionTier(result, '1080p')).toBe('audio-only');
  });

  it('two_audio_tracks_ac3_aac.mp4 lists both audio tracks', async () => {
    const result = await probe(shared('two_audio_tracks_ac3_aac.mp4'));
    expect(result.audio.map((a) => [a.codec, a.channels])).toEqual([['ac3', 6], ['aac', 2]]);
  });
});
