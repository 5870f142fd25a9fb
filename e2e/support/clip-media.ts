import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from '@playwright/test';
import { ffmpeg, ffprobe } from './media-probe';

// Short lavfi sources made at test time for clip and master tests, and decoded-picture checks:
// testsrc2 changes visibly every frame, so the frame a picture came from can be told from its
// neighbours by the mean absolute difference of small grey renderings.

export const FRAME_RATE = 25;
const THUMB_W = 64;
const THUMB_H = 48;

export const makeTempDir = (label: string) => mkdtemp(path.join(os.tmpdir(), `keyframe-${label}-`));
export const removeDir = (dir: string) => rm(dir, { recursive: true, force: true });

/** H.264 (keyframe every 2 s, so cuts must decode from before the start) + AAC sine; or audio only. */
export const makeSource = async (file: string, { seconds, audioOnly = false }: { seconds: number; audioOnly?: boolean }) => {
  const audio = ['-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=48000:duration=${seconds}`];
  const video = ['-f', 'lavfi', '-i', `testsrc2=size=320x240:rate=${FRAME_RATE}:duration=${seconds}`];
  const args = audioOnly
    ? ['-y', '-v', 'error', ...audio, '-c:a', 'aac', '-b:a', '128k', file]
    : ['-y', '-v', 'error', ...video, ...audio, '-map', '0:v', '-map', '1:a', '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '12',
        '-g', String(FRAME_RATE * 2), '-keyint_min', String(FRAME_RATE * 2), '-sc_threshold', '0', '-pix_fmt', 'yuv420p',
        '-c:a', 'aac', '-b:a', '128k', '-movflags', '+faststart', file];
  const result = await ffmpeg(args);
  expect(result.code, result.stderr).toBe(0);
};

/** Every frame of `input` as a small grey picture. */
export const decodeFrames = async (input: string, dir: string): Promise<Buffer[]> => {
  const out = path.join(dir, `${path.basename(input)}-${Date.now()}.gray`);
  const result = await ffmpeg(['-v', 'error', '-i', input, '-map', '0:v:0', '-vf', `scale=${THUMB_W}:${THUMB_H}`, '-pix_fmt', 'gray', '-f', 'rawvideo', '-y', out]);
  expect(result.code, result.stderr).toBe(0);
  const bytes = await readFile(out);
  const size = THUMB_W * THUMB_H;
  return Array.from({ length: bytes.length / size }, (_, index) => bytes.subarray(index * size, (index + 1) * size));
};

export const meanAbsoluteDifference = (a: Buffer, b: Buffer): number => {
  let total = 0;
  for (let index = 0; index < a.length; index += 1) total += Math.abs(a[index]! - b[index]!);
  return total / a.length;
};

/** The index of the source frame `picture` is closest to. */
export const closestFrame = (picture: Buffer, frames: Buffer[]): number => {
  let best = -1;
  let bestDifference = Number.POSITIVE_INFINITY;
  frames.forEach((frame, index) => {
    const difference = meanAbsoluteDifference(picture, frame);
    if (difference < bestDifference) {
      best = index;
      bestDifference = difference;
    }
  });
  return best;
};

export type StreamInfo = { codec_type: string; codec_name: string; duration?: string };

export const probeStreams = async (input: string): Promise<{ streams: StreamInfo[]; duration: number }> => {
  const result = await ffprobe(['-v', 'error', '-print_format', 'json', '-show_streams', '-show_format', input]);
  expect(result.code, result.stderr).toBe(0);
  const json = JSON.parse(result.stdout) as { streams: StreamInfo[]; format: { duration: string } };
  return { streams: json.streams, duration: Number(json.format.duration) };
};

/**
 * Audio RMS levels in 10 ms windows (mono 48 kHz s16): a sine with a gap or a missing stretch
 * shows windows near 0.
 */
export const audioWindowLevels = async (input: string, dir: string): Promise<number[]> => {
  const out = path.join(dir, `${path.basename(input)}-${Date.now()}.pcm`);
  const result = await ffmpeg(['-v', 'error', '-i', input, '-map', '0:a:0', '-ac', '1', '-ar', '48000', '-f', 's16le', '-y', out]);
  expect(result.code, result.stderr).toBe(0);
  const bytes = await readFile(out);
  const samples = new Int16Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.length / 2));
  const window = 480;
  const levels: number[] = [];
  for (let start = 0; start + window <= samples.length; start += window) {
    let sum = 0;
    for (let index = start; index < start + window; index += 1) sum += (samples[index]! / 32768) ** 2;
    levels.push(Math.sqrt(sum / window));
  }
  return levels;
};
