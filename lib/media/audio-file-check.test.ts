import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildAudioDecodeArgs, checkAudioDecode, checkAudioFileProbe } from './audio-file-check';
import type { MediaProbe } from './ffprobe';
import { probeMedia } from './probe-media';
import { runProcess } from './run-process';
import { ffmpeg, FFMPEG, FFPROBE, writePrefix } from './test-support/media-fixtures';
import { ChildProcessSet } from './child-process-set';

const children = new ChildProcessSet();

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'keyframe-audio-check-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const probe = (overrides: Partial<MediaProbe>): MediaProbe => ({
  formatName: 'mov,mp4,m4a,3gp,3g2,mj2',
  probeScore: 100,
  durationSeconds: 3,
  sizeBytes: 1000,
  bitRate: null,
  startTimeSeconds: 0,
  video: [],
  audio: [],
  ...overrides,
});

const audioStream = { index: 0, codec: 'mp3', channels: 2, channelLayout: 'stereo', sampleRate: 44_100, bitRate: null, durationSeconds: 3, language: null };

describe('checkAudioFileProbe', () => {
  test('a file with an audio stream is accepted', () => {
    expect(checkAudioFileProbe(probe({ audio: [audioStream] }))).toEqual({ ok: true });
  });

  test('a video without audio is refused, saying so', () => {
    const video = { index: 0, codec: 'h264', isAttachedPicture: false } as MediaProbe['video'][number];
    expect(checkAudioFileProbe(probe({ video: [video] }))).toEqual({ ok: false, reason: expect.stringContaining('only video') });
  });

  test('nothing audible at all is refused', () => {
    expect(checkAudioFileProbe(probe({}))).toEqual({ ok: false, reason: expect.stringContaining('no audio') });
  });
});

describe('buildAudioDecodeArgs', () => {
  test('decodes the first audio stream, no further than the duration asked for', () => {
    const args = buildAudioDecodeArgs({ inputPath: '/data/track', durationSeconds: 12 });
    expect(args.slice(args.indexOf('-t'), args.indexOf('-t') + 4)).toEqual(['-t', '12.000000', '-i', '/data/track']);
    expect(args[args.indexOf('-map') + 1]).toBe('0:a:0');
    expect(args.at(-1)).toBe('-');
  });
});

const decodeVerdict = async (file: string) => {
  const result = await runProcess({ command: FFMPEG, args: buildAudioDecodeArgs({ inputPath: file, durationSeconds: 60 }), children });
  return checkAudioDecode({ exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr, inputPath: file });
};

describe('checkAudioDecode, with the real ffmpeg', () => {
  test('an MP3 decodes', async () => {
    const file = path.join(dir, 'tone.mp3');
    await ffmpeg('-f', 'lavfi', '-i', 'sine=frequency=440:duration=2', '-c:a', 'libmp3lame', file);
    expect(await decodeVerdict(file)).toEqual({ ok: true });
  });

  test('an M4A whose media data is missing does not', async () => {
    const whole = path.join(dir, 'whole.m4a');
    await ffmpeg('-f', 'lavfi', '-i', 'sine=frequency=440:duration=4', '-c:a', 'aac', '-movflags', '+faststart', whole);
    const cut = path.join(dir, 'cut.m4a');
    await writePrefix(whole, cut, 0.05);
    const verdict = await decodeVerdict(cut);
    expect(verdict.ok).toBe(false);
  });

  test('an M4A cut in the middle of its media data is truncated, not padded', async () => {
    const whole = path.join(dir, 'whole-half.m4a');
    await ffmpeg('-f', 'lavfi', '-i', 'sine=frequency=440:duration=4', '-c:a', 'aac', '-movflags', '+faststart', whole);
    const cut = path.join(dir, 'half.m4a');
    await writePrefix(whole, cut, 0.5);
    expect(await decodeVerdict(cut)).toEqual({ ok: false, reason: expect.stringContaining('truncated') });
  });

  // Not random bytes: now and then those hold an MPEG audio frame sync and probe as MP3.
  test('bytes of no media format are not even probed as audio', async () => {
    const file = path.join(dir, 'noise.mp4');
    await writeFile(file, Buffer.alloc(64 * 1024, 'this is a text file, not media\n'));
    await expect(probeMedia({ ffprobePath: FFPROBE, inputPath: file, children })).rejects.toThrow(/could not be read/);
  });
});
