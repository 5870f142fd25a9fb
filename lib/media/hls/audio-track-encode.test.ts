import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runProcess } from '../run-process';
import { ffmpeg, FFMPEG, FFPROBE } from '../test-support/media-fixtures';
import type { AudioOutputChannels } from './audio-plan';
import { buildAudioTrackArgs } from './encode-args';
import { ChildProcessSet } from '../child-process-set';

const children = new ChildProcessSet();

// The audio track encode run by the real ffmpeg on every input codec an audio track may arrive in,
// and listened to: which stream it took (by its tone), where a 5.1 or 7.1 mix went, and how long
// the result lasts when it is padded or cut to the video.

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'keyframe-audio-track-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const sine = (frequency: number, seconds: number) => ['-f', 'lavfi', '-i', `sine=frequency=${frequency}:sample_rate=48000:duration=${seconds}`];

/** A source file made by ffmpeg from `args` (inputs and codec options). */
const source = async (name: string, args: string[]): Promise<string> => {
  const file = path.join(dir, name);
  await ffmpeg(...args, file);
  return file;
};

/** Runs the production arguments and keeps the fragmented MP4 they write to stdout. */
const encodeTrack = async (options: Parameters<typeof buildAudioTrackArgs>[0]): Promise<string> => {
  const chunks: Buffer[] = [];
  const result = await runProcess({ command: FFMPEG, args: buildAudioTrackArgs(options), onStdout: (chunk) => chunks.push(chunk), children });
  expect(result.exitCode, result.stderr).toBe(0);
  const output = path.join(dir, `${path.basename(options.inputPath)}-${options.streamIndex ?? 0}-${options.channels ?? 2}.mp4`);
  await writeFile(output, Buffer.concat(chunks));
  return output;
};

const probeAudio = async (file: string) => {
  const result = await runProcess({
    command: FFPROBE,
    args: ['-v', 'error', '-select_streams', 'a:0', '-show_entries', 'stream=codec_name,profile,channels,sample_rate', '-of', 'json', file],
    children,
  });
  return (JSON.parse(result.stdout) as { streams: Array<{ codec_name: string; profile: string; channels: number; sample_rate: string }> }).streams[0];
};

/** The decoded samples of every channel (float, 48 kHz). */
const decode = async (file: string, channels: number): Promise<Float32Array[]> => {
  const chunks: Buffer[] = [];
  const result = await runProcess({
    command: FFMPEG,
    args: ['-v', 'error', '-i', file, '-f', 'f32le', '-acodec', 'pcm_f32le', '-ar', '48000', 'pipe:1'],
    onStdout: (chunk) => chunks.push(chunk),
    children,
  });
  expect(result.exitCode, result.stderr).toBe(0);
  const all = new Float32Array(new Uint8Array(Buffer.concat(chunks)).buffer);
  return Array.from({ length: channels }, (_, channel) => all.filter((_, index) => index % channels === channel));
};

const rms = (samples: Float32Array) => Math.sqrt(samples.reduce((sum, value) => sum + value * value, 0) / Math.max(1, samples.length));

/**
 * The frequency of a pure tone: rising crossings over the time between the first and the last,
 * with hysteresis (a quarter of the peak) so codec noise around zero does not count.
 */
const toneFrequency = (samples: Float32Array) => {
  const threshold = samples.reduce((peak, value) => Math.max(peak, Math.abs(value)), 0) / 4;
  const rising: number[] = [];
  let low = false;
  samples.forEach((value, index) => {
    if (value < -threshold) low = true;
    else if (low && value > threshold) {
      rising.push(index);
      low = false;
    }
  });
  if (rising.length < 2) return 0;
  return (rising.length - 1) / ((rising.at(-1)! - rising[0]!) / 48_000);
};

const expectAacLc = async (file: string, channels: AudioOutputChannels) => {
  expect(await probeAudio(file)).toEqual({ codec_name: 'aac', profile: 'LC', channels, sample_rate: '48000' });
};

describe('every input codec becomes AAC-LC 48 kHz, stereo or mono', () => {
  const cases: Array<{ name: string; file: string; args: string[]; channels: AudioOutputChannels }> = [
    { name: 'AC-3 5.1', file: 'in.ac3', args: [...sine(500, 1.5), '-af', 'pan=5.1(side)|FL=c0|FR=c0', '-c:a', 'ac3'], channels: 2 },
    { name: 'E-AC-3 5.1', file: 'in.eac3', args: [...sine(500, 1.5), '-af', 'pan=5.1|FL=c0|FR=c0', '-c:a', 'eac3'], channels: 2 },
    { name: 'Opus stereo', file: 'in.opus', args: [...sine(500, 1.5), '-ac', '2', '-c:a', 'libopus'], channels: 2 },
    { name: 'MP3 stereo 44.1 kHz', file: 'in.mp3', args: [...sine(500, 1.5), '-ac', '2', '-ar', '44100', '-c:a', 'libmp3lame'], channels: 2 },
    { name: 'PCM 7.1 WAV', file: 'in71.wav', args: [...sine(500, 1.5), '-af', 'pan=7.1|FL=c0|FR=c0', '-c:a', 'pcm_s16le'], channels: 2 },
    { name: 'AAC mono', file: 'mono.m4a', args: [...sine(500, 1.5), '-ac', '1', '-c:a', 'aac'], channels: 1 },
  ];
  for (const sample of cases) {
    test(sample.name, async () => {
      const input = await source(sample.file, sample.args);
      const output = await encodeTrack({ inputPath: input, durationSeconds: 1.5, channels: sample.channels });
      await expectAacLc(output, sample.channels);
      const [first] = await decode(output, sample.channels);
      expect(toneFrequency(first!)).toBeGreaterThan(490);
      expect(toneFrequency(first!)).toBeLessThan(510);
    });
  }
});

describe('surround is downmixed, not cut to its first two channels', () => {
  test('5.1 with the tone only in the centre: both stereo channels carry it, equally', async () => {
    const input = await source('centre.ac3', [...sine(700, 1), '-af', 'pan=5.1(side)|FC=c0', '-c:a', 'ac3', '-b:a', '384k']);
    const [left, right] = await decode(await encodeTrack({ inputPath: input, durationSeconds: 1 }), 2);
    expect(rms(left!)).toBeGreaterThan(0.05);
    expect(rms(right!) / rms(left!)).toBeCloseTo(1, 1);
    expect(toneFrequency(left!)).toBeCloseTo(700, -1);
  });

  test('5.1 with the tone only in the surrounds: it reaches the left and right sides', async () => {
    const input = await source('surround.wav', [...sine(300, 1), ...sine(900, 1), '-filter_complex', '[0][1]amerge,pan=5.1(side)|SL=c0|SR=c1', '-c:a', 'pcm_s16le']);
    const [left, right] = await decode(await encodeTrack({ inputPath: input, durationSeconds: 1 }), 2);
    expect(toneFrequency(left!)).toBeCloseTo(300, -1);
    expect(toneFrequency(right!)).toBeCloseTo(900, -1);
  });

  test('7.1 with the tone only in the back left: the left side carries it, the right stays silent', async () => {
    const input = await source('back.wav', [...sine(400, 1), '-af', 'pan=7.1|BL=c0', '-c:a', 'pcm_s16le']);
    const [left, right] = await decode(await encodeTrack({ inputPath: input, durationSeconds: 1 }), 2);
    expect(rms(left!)).toBeGreaterThan(0.05);
    expect(rms(right!)).toBeLessThan(0.001);
  });
});

test('streamIndex picks that audio stream of a source with several', async () => {
  const input = await source('three.mkv', [
    ...sine(440, 1), ...sine(1000, 1), ...sine(2500, 1),
    '-map', '0', '-map', '1', '-map', '2', '-c:a', 'flac',
  ]);
  for (const [streamIndex, frequency] of [[0, 440], [1, 1000], [2, 2500]] as const) {
    const [left] = await decode(await encodeTrack({ inputPath: input, durationSeconds: 1, streamIndex }), 2);
    expect(Math.abs(toneFrequency(left!) - frequency), `stream ${streamIndex}`).toBeLessThan(frequency * 0.02);
  }
});

describe('aligned to the video', () => {
  test('a shorter file is padded with silence to the duration', async () => {
    const input = await source('short.mp3', [...sine(600, 1), '-c:a', 'libmp3lame']);
    const [left] = await decode(await encodeTrack({ inputPath: input, durationSeconds: 2.5, padToDuration: true }), 2);
    expect(left!.length / 48_000).toBeCloseTo(2.5, 1);
    expect(rms(left!.subarray(0, 48_000 * 0.8))).toBeGreaterThan(0.05);
    expect(rms(left!.subarray(48_000 * 1.2))).toBeLessThan(0.001);
  });

  test('a longer file is cut at the duration', async () => {
    const input = await source('long.opus', [...sine(600, 4), '-c:a', 'libopus']);
    const [left] = await decode(await encodeTrack({ inputPath: input, durationSeconds: 2, padToDuration: true }), 2);
    expect(left!.length / 48_000).toBeCloseTo(2, 1);
    expect(rms(left!.subarray(48_000 * 1.5))).toBeGreaterThan(0.05);
  });
});
