import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { AudioStreamInfo, MediaProbe, VideoStreamInfo } from '../ffprobe';
import { probeMedia } from '../probe-media';
import { runProcess } from '../run-process';
import { buildMasterArgs, planMaster } from './master-args';
import { ChildProcessSet } from '../child-process-set';

const children = new ChildProcessSet();

const video = (codec: string, extra: Partial<VideoStreamInfo> = {}): VideoStreamInfo => ({
  index: 0, codec, profile: null, pixelFormat: 'yuv420p', codedWidth: 320, codedHeight: 240, rotation: 0, displayWidth: 320,
  displayHeight: 240, frameRate: 25, constantFrameRate: true, bitRate: null, durationSeconds: 2, isAttachedPicture: false, ...extra,
});
const audio = (codec: string): AudioStreamInfo => ({
  index: 1, codec, channels: 2, channelLayout: 'stereo', sampleRate: 48_000, bitRate: null, durationSeconds: 2, language: null,
});
const probe = (videos: VideoStreamInfo[], audios: AudioStreamInfo[]): MediaProbe => ({
  formatName: 'x', probeScore: 100, durationSeconds: 2, sizeBytes: 1, bitRate: 1, startTimeSeconds: 0, video: videos, audio: audios,
});

describe('planMaster', () => {
  test('H.264/HEVC with AAC, MP3 or no audio is remuxed', () => {
    expect(planMaster(probe([video('h264')], [audio('aac')]))).toMatchObject({ mode: 'remux', extension: 'mp4', audioOnly: false });
    expect(planMaster(probe([video('hevc')], [audio('mp3')]))).toMatchObject({ mode: 'remux', hevc: true });
    expect(planMaster(probe([video('h264')], []))).toMatchObject({ mode: 'remux' });
  });
  test('other codecs are encoded', () => {
    expect(planMaster(probe([video('vp9')], [audio('opus')])).mode).toBe('encode');
    expect(planMaster(probe([video('h264')], [audio('pcm_s16le')])).mode).toBe('encode');
    expect(planMaster(probe([video('prores')], [audio('aac')])).mode).toBe('encode');
  });
  test('audio only (cover art included) gives .m4a', () => {
    expect(planMaster(probe([], [audio('aac')]))).toMatchObject({ mode: 'remux', extension: 'm4a', audioOnly: true });
    expect(planMaster(probe([video('mjpeg', { isAttachedPicture: true })], [audio('mp3')]))).toMatchObject({ mode: 'remux', extension: 'm4a' });
    expect(planMaster(probe([], [audio('flac')]))).toMatchObject({ mode: 'encode', extension: 'm4a' });
  });
  test('remux copies streams; HEVC is tagged hvc1', () => {
    const args = buildMasterArgs({ input: 'in', output: 'out.mp4', plan: planMaster(probe([video('hevc')], [audio('aac')])) });
    expect(args.join(' ')).toContain('-c copy -tag:v hvc1');
    expect(args.join(' ')).toContain('-movflags +faststart');
  });
});

describe('masters made by ffmpeg', () => {
  let dir: string;
  const ffmpeg = async (args: string[]) => {
    const result = await runProcess({ command: 'ffmpeg', args, children });
    expect(result.exitCode, result.stderr).toBe(0);
  };
  const lavfi = ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=160x120:rate=25:duration=1', '-f', 'lavfi', '-i', 'sine=duration=1'];
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'master-args-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test.each([
    { name: 'h264-aac.mp4', codecs: ['-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'aac'], mode: 'remux' },
    { name: 'vp9-opus.webm', codecs: ['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-c:a', 'libopus'], mode: 'encode' },
  ])('$name: $mode gives H.264 + AAC in a faststart MP4', async ({ name, codecs, mode }) => {
    const input = path.join(dir, name);
    await ffmpeg([...lavfi, ...codecs, input]);
    const plan = planMaster(await probeMedia({ ffprobePath: 'ffprobe', inputPath: input, children }));
    expect(plan.mode).toBe(mode);
    const output = path.join(dir, `${name}.master.mp4`);
    await ffmpeg(buildMasterArgs({ input, output, plan }));
    const master = await probeMedia({ ffprobePath: 'ffprobe', inputPath: output, children });
    expect(master.video.map((stream) => stream.codec)).toEqual(['h264']);
    expect(master.audio.map((stream) => stream.codec)).toEqual(['aac']);
    expect(Math.abs((master.durationSeconds ?? 0) - 1)).toBeLessThan(0.1);
  }, 30_000);
});
