import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runProcess } from '../run-process';
import { buildClipArgs } from './clip-args';
import { ChildProcessSet } from '../child-process-set';

const children = new ChildProcessSet();

// The cut is checked on real output: a 25 fps testsrc2 with a sine, cut between frames that are
// not keyframes, must give exactly the frames in range, with audio as long as the video.

let dir: string;
const run = async (command: string, args: string[]) => {
  const result = await runProcess({ command, args, children });
  expect(result.exitCode, result.stderr).toBe(0);
  return result.stdout;
};
const probe = async (file: string) =>
  JSON.parse(await run('ffprobe', ['-v', 'error', '-print_format', 'json', '-count_frames', '-show_streams', '-show_format', file])) as {
    streams: { codec_type: string; start_time: string; duration: string; nb_read_frames?: string }[];
  };

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'clip-args-'));
  await run('ffmpeg', [
    '-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=160x120:rate=25:duration=4', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=4',
    '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '50', '-c:a', 'aac', path.join(dir, 'source.mp4'),
  ]);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('buildClipArgs', () => {
  test('seeks on the input, re-encodes, and maps only the streams the source has', () => {
    const args = buildClipArgs({ input: 'in', output: 'out.mp4', startSeconds: 1.5, endSeconds: 3, hasVideo: false, hasAudio: true });
    expect(args.indexOf('-ss')).toBeLessThan(args.indexOf('-i'));
    expect(args).toContain('1.500000');
    expect(args[args.indexOf('-t') + 1]).toBe('1.500000');
    expect(args).not.toContain('0:v:0');
    expect(args).toContain('aac');
    expect(args.at(-1)).toBe('out.mp4');
  });

  test('a cut between keyframes has exactly the frames in range, audio and video starting at 0 and ending together', async () => {
    const output = path.join(dir, 'clip.mp4');
    await run('ffmpeg', buildClipArgs({ input: path.join(dir, 'source.mp4'), output, startSeconds: 1.24, endSeconds: 2.6, hasVideo: true, hasAudio: true }));
    const { streams } = await probe(output);
    const video = streams.find((stream) => stream.codec_type === 'video')!;
    const audio = streams.find((stream) => stream.codec_type === 'audio')!;
    expect(Number(video.nb_read_frames)).toBe(34);
    expect(Number(video.start_time)).toBe(0);
    expect(Number(audio.start_time)).toBe(0);
    expect(Math.abs(Number(audio.duration) - Number(video.duration))).toBeLessThan(0.025);
  }, 30_000);
});
