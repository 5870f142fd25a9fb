import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MediaInputError } from './media-errors';
import { probeMedia } from './probe-media';
import { FFMPEG, FFPROBE, SHARED_MEDIA, aac, ffmpeg, writePrefix, x264 } from './test-support/media-fixtures';
import { buildDecodeCheckArgs, buildQuickDecodeCheckArgs, parseDecodeProgress, quickVideoDecodeCheck, verifyDecodable } from './verify-decodable';
import { ChildProcessSet } from './child-process-set';

const children = new ChildProcessSet();

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
  const probe = await probeMedia({ ffprobePath: FFPROBE, inputPath, children });
  await verifyDecodable({ ffmpegPath: FFMPEG, inputPath, probe, signal, children });
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

describe('buildQuickDecodeCheckArgs', () => {
  it('decodes only keyframes of the first video stream, without find_stream_info, one thread', () => {
    const start = buildQuickDecodeCheckArgs({ inputPath: 'http://127.0.0.1:1/x', end: 'start' });
    const input = start.indexOf('-i');
    for (const option of ['-nofind_stream_info', '-skip_frame', '-threads', '-t']) {
      expect(start.indexOf(option), option).toBeGreaterThan(-1);
      expect(start.indexOf(option), option).toBeLessThan(input);
    }
    expect(start[start.indexOf('-skip_frame') + 1]).toBe('nokey');
    expect(start[start.indexOf('-threads') + 1]).toBe('1');
    expect(start[start.indexOf('-t') + 1]).toBe('0.500');
    expect(start).not.toContain('-sseof');
    expect(start[start.indexOf('-map') + 1]).toBe('0:v:0');
    // The start stops at its first keyframe; the end reads on to the end of the file.
    expect(start.slice(start.indexOf('-frames:v'), start.indexOf('-frames:v') + 2)).toEqual(['-frames:v', '1']);
    expect(start.indexOf('-frames:v')).toBeGreaterThan(input);
    expect(buildQuickDecodeCheckArgs({ inputPath: 'in.mp4', end: 'end' })).not.toContain('-frames:v');
  });

  it('finds the end from the container duration, so it needs no probe', () => {
    const end = buildQuickDecodeCheckArgs({ inputPath: 'in.mp4', end: 'end' });
    const input = end.indexOf('-i');
    expect(end.slice(end.indexOf('-sseof'), end.indexOf('-sseof') + 2)).toEqual(['-sseof', '-0.500']);
    expect(end.slice(end.indexOf('-t'), end.indexOf('-t') + 2)).toEqual(['-t', '1.000']);
    expect(end.indexOf('-noaccurate_seek')).toBeGreaterThan(-1);
    expect(end.indexOf('-sseof')).toBeLessThan(input);
    expect(end).not.toContain('-ss');
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
    const probe = await probeMedia({ ffprobePath: FFPROBE, inputPath: file('truncated-60.mp4'), children });
    expect(probe.durationSeconds).toBeCloseTo(2, 0);
    const error: unknown = await verifyDecodable({ ffmpegPath: FFMPEG, inputPath: file('truncated-60.mp4'), probe, children }).catch((e: unknown) => e);
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
    const probe = await probeMedia({ ffprobePath: FFPROBE, inputPath: file('normal.mp4'), children });
    const signal = AbortSignal.abort(new Error('job cancelled'));
    await expect(verifyDecodable({ ffmpegPath: FFMPEG, inputPath: file('normal.mp4'), probe, signal, children })).rejects.toThrow('job cancelled');
  });
});

describe('quickVideoDecodeCheck', () => {
  const quick = (name: string, end: 'start' | 'end') => quickVideoDecodeCheck({ ffmpegPath: FFMPEG, inputPath: file(name), end, children });

  it('is clean at both ends of intact files', async () => {
    for (const name of ['normal.mp4', 'six-seconds.mp4', 'portrait.mp4']) {
      expect(await quick(name, 'start'), `${name} start`).toBe(true);
      expect(await quick(name, 'end'), `${name} end`).toBe(true);
    }
  });

  it('is not clean at the end of a file whose data stops short, nor without a video stream', async () => {
    expect(await quick('truncated-60.mp4', 'end')).toBe(false);
    expect(await quick('truncated-30.mp4', 'end')).toBe(false);
    expect(await quick('audio.m4a', 'start')).toBe(false);
    expect(await quick('audio.m4a', 'end')).toBe(false);
  });

  it('rejects with the abort reason when aborted', async () => {
    const signal = AbortSignal.abort(new Error('job cancelled'));
    await expect(quickVideoDecodeCheck({ ffmpegPath: FFMPEG, inputPath: file('normal.mp4'), end: 'end', signal, children })).rejects.toThrow('job cancelled');
  });
});

describe('verifyDecodable: quick check first, the full window when it is not clean', () => {
  // An ffmpeg that logs its arguments, and optionally fails every quick check, to see which
  // checks ran and that the full check alone decides when the quick one says nothing.
  const wrapper = async (name: string, failQuick: boolean) => {
    const script = file(`${name}.sh`);
    const log = file(`${name}.log`);
    await writeFile(
      script,
      [
        '#!/bin/sh',
        `echo "$*" >> '${log}'`,
        ...(failQuick ? ['case " $* " in *" -nofind_stream_info "*) echo "simulated failure" >&2; exit 1;; esac'] : []),
        `exec ${FFMPEG} "$@"`,
        '',
      ].join('\n'),
    );
    await chmod(script, 0o755);
    const calls = async () => (await readFile(log, 'utf8').catch(() => '')).trim().split('\n').filter(Boolean);
    return { script, calls };
  };
  const isQuick = (args: string) => args.includes('-nofind_stream_info');

  it('a clean file is decided by the quick checks alone', async () => {
    const ffmpegLog = await wrapper('clean', false);
    const probe = await probeMedia({ ffprobePath: FFPROBE, inputPath: file('six-seconds.mp4'), children });
    await verifyDecodable({ ffmpegPath: ffmpegLog.script, inputPath: file('six-seconds.mp4'), probe, children });
    const calls = await ffmpegLog.calls();
    expect(calls).toHaveLength(2);
    expect(calls.every(isQuick)).toBe(true);
  });

  it('when the quick checks are not clean, the full checks decide: an intact file is accepted, a truncated one rejected', async () => {
    const intact = await wrapper('intact', true);
    const probe = await probeMedia({ ffprobePath: FFPROBE, inputPath: file('six-seconds.mp4'), children });
    await expect(verifyDecodable({ ffmpegPath: intact.script, inputPath: file('six-seconds.mp4'), probe, children })).resolves.toBeUndefined();
    expect((await intact.calls()).filter((args) => !isQuick(args))).toHaveLength(2);

    const truncated = await wrapper('truncated', true);
    const cutProbe = await probeMedia({ ffprobePath: FFPROBE, inputPath: file('truncated-60.mp4'), children });
    await expect(verifyDecodable({ ffmpegPath: truncated.script, inputPath: file('truncated-60.mp4'), probe: cutProbe, children })).rejects.toThrow(
      /^The input file is truncated/,
    );
  });

  it('audio-only files skip the quick check; quick: false skips it for video', async () => {
    const audio = await wrapper('audio', false);
    await verifyDecodable({ ffmpegPath: audio.script, inputPath: file('audio.m4a'), probe: await probeMedia({ ffprobePath: FFPROBE, inputPath: file('audio.m4a'), children }), children });
    expect((await audio.calls()).some(isQuick)).toBe(false);

    const full = await wrapper('full', false);
    const probe = await probeMedia({ ffprobePath: FFPROBE, inputPath: file('normal.mp4'), children });
    await verifyDecodable({ ffmpegPath: full.script, inputPath: file('normal.mp4'), probe, quick: false, children });
    const calls = await full.calls();
    expect(calls).toHaveLength(2);
    expect(calls.some(isQuick)).toBe(false);
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
