import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ChildProcessSet } from '../child-process-set';
import { buildVideoSegmentArgs } from '../hls/encode-args';
import { buildLadder } from '../hls/ladder';
import { buildSegmentPlan, encodeWindow } from '../hls/segment-plan';
import { runProcess } from '../run-process';
import { ffmpeg, FFMPEG } from '../test-support/media-fixtures';
import { buildSegmentQualityArgs, MAX_PSNR, parseSegmentQuality, psnrOf, readSegmentQuality } from './segment-quality';

const children = new ChildProcessSet();

// Segments encoded as the just-in-time encoder does, scored against the source window they were
// made from: high but imperfect scores, one per frame of the segment; scored against another
// window (the wrong source) they fall.

let dir: string;
let source: string;
const plan = buildSegmentPlan({ duration: 6, frameRate: 30, constantFrameRate: true });
const ladder = buildLadder({ display: { width: 640, height: 360 }, frameRate: 30, encodingTier: 'smart', maxResolutionTier: '1080p' });

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'keyframe-quality-'));
  source = path.join(dir, 'source.mp4');
  // B-frames and keyframes off the segment boundaries, as from a camera.
  await ffmpeg('-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=30:duration=6', '-c:v', 'libx264', '-preset', 'ultrafast', '-bf', '2', '-g', '45', '-pix_fmt', 'yuv420p', source);
}, 60_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

const encodeSegment = async (rungIndex: number, index: number): Promise<string> => {
  const chunks: Buffer[] = [];
  const args = buildVideoSegmentArgs({ inputPath: source, rung: ladder[rungIndex]!, ...encodeWindow(plan, index) });
  const result = await runProcess({ command: FFMPEG, args, onStdout: (chunk) => chunks.push(chunk), children });
  expect(result.exitCode, result.stderr).toBe(0);
  const file = path.join(dir, `${ladder[rungIndex]!.name}-${index}.mp4`);
  await writeFile(file, Buffer.concat(chunks));
  return file;
};

const score = async (encodedPath: string, rungIndex: number, index: number) => {
  const statsDir = await mkdtemp(path.join(dir, 'stats-'));
  const args = buildSegmentQualityArgs({ encodedPath, inputPath: source, rung: ladder[rungIndex]!, window: encodeWindow(plan, index), statsDir });
  const result = await runProcess({ command: FFMPEG, args, children });
  expect(result.exitCode, result.stderr).toBe(0);
  return readSegmentQuality(statsDir);
};

describe('scoring a segment against its source window', () => {
  test.each([
    [0, 0],
    [0, 1],
    [1, 2],
  ])('rung %i, segment %i: every frame scored, high and imperfect', async (rungIndex, index) => {
    const quality = await score(await encodeSegment(rungIndex, index), rungIndex, index);
    expect(quality.frames).toBe(Math.round(plan.segments[index]!.duration * 30));
    expect(quality.ssim).toBeGreaterThan(0.9);
    expect(quality.ssim).toBeLessThan(1);
    expect(quality.psnr).toBeGreaterThan(30);
    expect(quality.psnr).toBeLessThan(MAX_PSNR);
  }, 60_000);

  test('against the wrong window the scores fall', async () => {
    const encoded = await encodeSegment(0, 1);
    const right = await score(encoded, 0, 1);
    const wrong = await score(encoded, 0, 0);
    expect(wrong.ssim).toBeLessThan(right.ssim - 0.05);
    expect(wrong.psnr).toBeLessThan(right.psnr - 5);
  }, 60_000);
});

describe('parseSegmentQuality', () => {
  test('mean SSIM over the frames; PSNR from the mean squared error, as ffmpeg sums up a run', () => {
    const ssim = 'n:1 Y:0.990000 U:0.980000 V:0.970000 All:0.985000 (18.239)\nn:2 Y:0.99 U:0.98 V:0.97 All:0.975000 (16.0)\n';
    const psnr = 'n:1 mse_avg:10.00 mse_y:12.00 mse_u:5.00 mse_v:5.00 psnr_avg:38.13 psnr_y:37.34\nn:2 mse_avg:30.00 mse_y:1 mse_u:1 mse_v:1 psnr_avg:33.36\n';
    const quality = parseSegmentQuality(ssim, psnr);
    expect(quality.frames).toBe(2);
    expect(quality.ssim).toBeCloseTo(0.98, 6);
    expect(quality.meanSquaredError).toBe(20);
    expect(quality.psnr).toBeCloseTo(10 * Math.log10(65025 / 20), 6);
  });

  test('identical pictures score the ceiling, not infinity; no frames is an error', () => {
    expect(psnrOf(0)).toBe(MAX_PSNR);
    expect(parseSegmentQuality('n:1 All:1.000000 (inf)\n', 'n:1 mse_avg:0.00 psnr_avg:inf\n')).toMatchObject({ ssim: 1, psnr: MAX_PSNR });
    expect(() => parseSegmentQuality('', '')).toThrow(/no frames/);
  });
});
