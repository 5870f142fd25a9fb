import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MediaInputError } from './media-errors';
import { probeMedia } from './probe-media';
import { FFMPEG, FFPROBE, SHARED_MEDIA, aac, ffmpeg, writePrefix, x264 } from './test-support/media-fixtures';
import { buildDecodeCheckArgs, parseDecodeProgress, verifyDecodable } from './verify-decodable';

let dir = '';
const file = (name: string): string => join(dir, name);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keyframe-decode-'));
  // faststart puts moov first, so a truncated copy still probes fine: only decoding notices.
  await ffmpeg(
    '-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=30:duration=2',
    '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000:duration=2',
    ...x264, ...aac, '-shortest', '-movflags', '+faststart', file('normal.mp4'),
  );
  await ffmpeg(
    '-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=30:duration=6',
    '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000:duration=6',
    ...x264, ...aac, '-shortest', '-movflags', '+faststart', file('six-seconds.mp4'),
  );
  await ffmpeg('-i', file('normal.mp4'), '-c', 'copy', '-metadata:s:v:0', 'rotate=90', file('portrait.mp4'));
  await ffmpeg(
    '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000:duration=3', ...aac, '-movflags', '+faststart', file('audio.m4a'),
  );
  await writePrefix(file('normal.mp4'), file('truncated-60.mp4'), 0.6);
  await writePrefix(file('six-seconds.mp4'), file('truncated-30.mp4'), 0.3);
  await writePrefix(file('audio.m4a'), file('audio-truncated-50.m4a'), 0.5);
}, 60_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function verify(inputPath: string, signal?: AbortSignal): Promise<void> {
  const probe = await probeMedia({ ffprobePath: FFPROBE, inputPath });
  await verifyDecodable({ ffmpegPath: FFMPEG, inputPath, probe, signal });
}

describe('buildDecodeCheckArgs', () => {
  it('seeks on the input side and decodes one stream to the null muxer', () => {
    expect(buildDecodeCheckArgs({ inputPath: '/in/clip.mov', startSeconds: 16.064, durationSeconds: 2, streams: 'video' })).toEqual([
      '-hide_banner', '-nostdin', '-v', 'error',
      '-ss', '16.064', '-t', '2.000', '-i', '/in/clip.mov',
      '-map', '0:v:0', '-f', 'null', '-progress', 'pipe:1', '-nostats', '-',
    ]);
    const audio = buildDecodeCheckArgs({ inputPath: 'a.mp3', startSeconds: -1, durationSeconds: 1, streams: 'audio' });
    expect(audio.slice(audio.indexOf('-ss'), audio.indexOf('-ss') + 2)).toEqual(['-ss', '0.000']);
    expect(audio[audio.indexOf('-map') + 1]).toBe('0:a:0');
    expect(audio.indexOf('-ss')).toBeLessThan(audio.indexOf('-i'));
  });
});

describe('parseDecodeProgress', () => {
  it('takes the final totals', () => {
    const stdout = 'frame=1\nout_time_us=33333\nprogress=continue\nframe=30\nout_time_us=N/A\nout_time_us=1000000\nprogress=end\n';
    expect(parseDecodeProgress(stdout)).toEqual({ frames: 30, outTimeMicros: 1_000_000 });
    expect(parseDecodeProgress('')).toEqual({ frames: 0, outTimeMicros: 0 });
  });
});

describe('verifyDecodable on generated files', () => {
  it.each(['normal.mp4', 'six-seconds.mp4', 'portrait.mp4', 'audio.m4a'])('accepts %s', async (name) => {
    await expect(verify(file(name))).resolves.toBeUndefined();
  });

  it('rejects a faststart MP4 cut at 60% whose header survived', async () => {
    const probe = await probeMedia({ ffprobePath: FFPROBE, inputPath: file('truncated-60.mp4') });
    expect(probe.durationSeconds).toBeCloseTo(2, 0);
    const error: unknown = await verifyDecodable({ ffmpegPath: FFMPEG, inputPath: file('truncated-60.mp4'), probe }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MediaInputError);
    expect((error as Error).message).toMatch(/^The input file is truncated/);
    expect((error as Error).message).not.toContain(dir);
  });

  it('rejects a file cut long before its end window', async () => {
    await expect(verify(file('truncated-30.mp4'))).rejects.toThrow(MediaInputError);
  });

  it('rejects a truncated audio-only file', async () => {
    await expect(verify(file('audio-truncated-50.m4a'))).rejects.toThrow(/truncated/);
  });

  it('rejects with the abort reason when aborted', async () => {
    const probe = await probeMedia({ ffprobePath: FFPROBE, inputPath: file('normal.mp4') });
    const signal = AbortSignal.abort(new Error('job cancelled'));
    await expect(verifyDecodable({ ffmpegPath: FFMPEG, inputPath: file('normal.mp4'), probe, signal })).rejects.toThrow('job cancelled');
  });
});

describe.skipIf(!existsSync(SHARED_MEDIA))('verifyDecodable on shared real-world media', () => {
  it.each([
    'london_h264_aac_360p_17s.mp4',
    'android_h264_aac_720p_5s_rot90.mp4',
    'iphone_hevc_hlg_portrait_vfr.mov',
    'bbb_vp8_vorbis_720p_30s.webm',
    'roadtrip_vp9_10bit_240p_3s.webm',
    'outfoxing_the_fox_kevin_macleod.mp3',
    // Has one corrupt AC-3 block: a benign decoder error that must not fail the check.
    'two_audio_tracks_ac3_aac.mp4',
  ])('accepts %s', async (name) => {
    await expect(verify(join(SHARED_MEDIA, name))).resolves.toBeUndefined();
  });

  it('rejects a truncated copy of the 17 s London clip', async () => {
    // This clip keeps moov at the end, so cutting it loses the index: probing already refuses it.
    await writePrefix(join(SHARED_MEDIA, 'london_h264_aac_360p_17s.mp4'), file('london-cut.mp4'), 0.8);
    await expect(verify(file('london-cut.mp4'))).rejects.toThrow(MediaInputError);
  });
});
