import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { overlaySettingsSchema } from '../../schemas/overlay-settings';
import { ChildProcessSet } from '../child-process-set';
import { splitFragmentedMp4 } from '../fmp4';
import type { OverlayImage } from '../overlay/overlay-filter';
import { runProcess } from '../run-process';
import { ffmpeg, FFMPEG } from '../test-support/media-fixtures';
import { buildMultiRungSegmentArgs, buildVideoSegmentArgs, type SegmentOutput } from './encode-args';
import { buildLadder } from './ladder';
import { buildSegmentPlan, encodeWindow } from './segment-plan';

const children = new ChildProcessSet();

// One ffmpeg decoding a segment's source window once for several rungs must write, for each rung,
// the bytes the single-rung encode writes: segments are served `immutable`, and either encode may
// produce a given (rung, segment).

let dir: string;
let source: string;
let watermarks: OverlayImage[];
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'keyframe-multi-rung-'));
  source = path.join(dir, 'source.mp4');
  const [red, blue] = [path.join(dir, 'red.png'), path.join(dir, 'blue.png')];
  await ffmpeg('-f', 'lavfi', '-i', 'color=c=red@0.5:size=64x32,format=rgba', '-frames:v', '1', red);
  await ffmpeg('-f', 'lavfi', '-i', 'color=c=blue:size=40x40,format=rgba', '-frames:v', '1', blue);
  watermarks = [
    { path: red, width: 64, height: 32, settings: overlaySettingsSchema.parse({ vertical_align: 'bottom', opacity: '50%' }) },
    { path: blue, width: 40, height: 40, settings: overlaySettingsSchema.parse({ horizontal_align: 'right', width: '10%' }) },
  ];
  // Camera-like: B-frames, and keyframes off the segment boundaries, so the later segment's seek
  // lands before its cut and the trim drops frames.
  await ffmpeg(
    '-f', 'lavfi', '-i', 'testsrc2=size=960x540:rate=30:duration=4',
    '-c:v', 'libx264', '-preset', 'ultrafast', '-bf', '2', '-pix_fmt', 'yuv420p', '-g', '45', source,
  );
}, 60_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

const rungs = buildLadder({ display: { width: 960, height: 540 }, frameRate: 30, encodingTier: 'smart', maxResolutionTier: '1080p' });
const plan = buildSegmentPlan({ duration: 4, frameRate: 30, constantFrameRate: true });

const encodeSingle = async (args: string[]): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  const result = await runProcess({ command: FFMPEG, args, onStdout: (chunk) => chunks.push(chunk), children });
  expect(result.exitCode, result.stderr).toBe(0);
  return Buffer.concat(chunks);
};

const encodeMulti = async (args: string[], count: number): Promise<Buffer[]> => {
  const outputs = Array.from({ length: count }, () => [] as Buffer[]);
  const result = await runProcess({
    command: FFMPEG,
    args,
    extraOutputs: outputs.map((chunks) => (chunk: Buffer) => void chunks.push(chunk)),
    children,
  });
  expect(result.exitCode, result.stderr).toBe(0);
  expect(result.stdout).toBe('');
  return outputs.map((chunks) => Buffer.concat(chunks));
};

const compare = async (outputs: SegmentOutput[], index: number): Promise<void> => {
  const window = encodeWindow(plan, index);
  const [multi, ...singles] = await Promise.all([
    encodeMulti(buildMultiRungSegmentArgs({ inputPath: source, outputs, ...window }), outputs.length),
    ...outputs.map((output) => encodeSingle(buildVideoSegmentArgs({ inputPath: source, ...output, ...window }))),
  ]);
  outputs.forEach((output, k) => {
    const [fromMulti, single] = [multi![k]!, singles[k] as Buffer];
    const parts = [splitFragmentedMp4(fromMulti), splitFragmentedMp4(single)];
    for (const { init, fragments } of parts) {
      expect(init.length).toBeGreaterThan(0);
      expect(fragments.length).toBeGreaterThan(0);
    }
    expect(sha256(fromMulti), `${output.rung.name} segment ${index}`).toBe(sha256(single));
  });
};

describe('a multi-rung encode writes, for each rung, the bytes of its single-rung encode', () => {
  test('the ladder has the rungs these cases expect', () => {
    expect(rungs.map((rung) => rung.name)).toEqual(['270p', '360p', '540p']);
    expect(plan.segments.length).toBe(2);
    expect(encodeWindow(plan, 1).keyframeLookaheadSeconds).toBeGreaterThan(0);
  });

  test.each([
    [2, 0],
    [2, 1],
    [3, 0],
    [3, 1],
  ])('%i rungs, segment %i', (count, index) => compare(rungs.slice(0, count).map((rung) => ({ rung })), index), 60_000);

  test('each rung with its own watermarks, laid out for its size (the images are extra inputs)', async () => {
    const [first, second] = watermarks;
    const [low, middle, top] = rungs;
    await compare([{ rung: low!, overlays: [first!] }, { rung: middle! }, { rung: top!, overlays: [second!, first!] }], 1);
  }, 60_000);

  test('a preset of its own for one output', () => compare([{ rung: rungs[0]!, preset: 'ultrafast' }, { rung: rungs[1]! }], 0), 60_000);
});
