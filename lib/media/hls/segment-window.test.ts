import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runProcess } from '../run-process';
import { ffmpeg, FFMPEG, FFPROBE } from '../test-support/media-fixtures';
import { buildVideoSegmentArgs } from './encode-args';
import { buildLadder } from './ladder';
import { buildSegmentPlan, encodeWindow } from './segment-plan';
import { ChildProcessSet } from '../child-process-set';

const children = new ChildProcessSet();

// A segment must hold exactly the source frames of its window, whichever way the input seek lands.
// Each source frame here is flat grey with a brightness of 5 × its number (mod 250), so a decoded
// segment tells which source frames it holds.

const FPS = 30;
const SECONDS = 12;
const STEP = 5;
const brightnessOf = (frame: number) => (frame * STEP) % 250;

let dir: string;
const sources: Record<'keyframesOnBoundaries' | 'keyframesOffBoundaries', string> = { keyframesOnBoundaries: '', keyframesOffBoundaries: '' };

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'keyframe-window-'));
  const make = async (name: keyof typeof sources, gop: number) => {
    sources[name] = path.join(dir, `${name}.mp4`);
    await ffmpeg(
      '-f', 'lavfi', '-i', `color=c=black:s=160x96:r=${FPS}:d=${SECONDS},geq=lum='mod(N*${STEP}\\,250)':cb=128:cr=128`,
      '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-g', String(gop), '-keyint_min', String(gop), '-sc_threshold', '0',
      sources[name],
    );
  };
  // A 2 s GOP puts a keyframe on every plan boundary; a 1.5 s one misses most of them.
  await make('keyframesOnBoundaries', 2 * FPS);
  await make('keyframesOffBoundaries', 45);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const [lowest] = buildLadder({ display: { width: 1920, height: 1080 }, frameRate: FPS, encodingTier: 'smart', maxResolutionTier: '1080p' });
const rung = { ...lowest!, width: 160, height: 96 };

// The brightness of every frame of an encoded segment, in order.
const encodedBrightness = async (args: string[], name: string): Promise<number[]> => {
  const chunks: Buffer[] = [];
  const encode = await runProcess({ command: FFMPEG, args, onStdout: (chunk) => chunks.push(chunk), children });
  expect(encode.exitCode, encode.stderr).toBe(0);
  const file = path.join(dir, `${name}.mp4`);
  await writeFile(file, Buffer.concat(chunks));
  const probe = await runProcess({
    command: FFPROBE,
    args: ['-v', 'error', '-f', 'lavfi', '-i', `movie=${file},signalstats`, '-show_entries', 'frame_tags=lavfi.signalstats.YAVG', '-of', 'csv=p=0'],
    children,
  });
  expect(probe.exitCode, probe.stderr).toBe(0);
  return probe.stdout.trim().split('\n').map(Number);
};

describe('segment windows', () => {
  const cases = (['keyframesOnBoundaries', 'keyframesOffBoundaries'] as const).flatMap((source) =>
    [1, 2, 3].map((index) => [source, index] as const),
  );
  test.each(cases)('%s, segment %i: the lookahead seek keeps exactly the window frames', async (source, index) => {
    const plan = buildSegmentPlan({ duration: SECONDS, frameRate: FPS, constantFrameRate: true });
    const window = encodeWindow(plan, index);
    expect(window.keyframeLookaheadSeconds).toBeGreaterThan(0);
    const segment = plan.segments[index]!;
    const firstFrame = Math.round(segment.start * FPS);
    const frames = Math.round(segment.duration * FPS);
    const expected = Array.from({ length: frames }, (_, offset) => brightnessOf(firstFrame + offset));

    const withLookahead = await encodedBrightness(buildVideoSegmentArgs({ inputPath: sources[source], rung, ...window }), `${source}-${index}-ahead`);
    const accurateSeek = await encodedBrightness(
      buildVideoSegmentArgs({ inputPath: sources[source], rung, ...window, keyframeLookaheadSeconds: 0 }),
      `${source}-${index}-accurate`,
    );
    // Lossy encoding moves a flat frame's brightness by far less than the 5 between neighbours.
    expect(withLookahead.map((value, at) => Math.abs(value - expected[at]!) < 2)).toEqual(expected.map(() => true));
    expect(withLookahead).toHaveLength(frames);
    expect(accurateSeek).toHaveLength(frames);
    expect(accurateSeek.map((value, at) => Math.abs(value - expected[at]!) < 2)).toEqual(expected.map(() => true));
  });
});
