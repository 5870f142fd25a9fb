import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { splitFragmentedMp4 } from '../fmp4';
import { runProcess } from '../run-process';
import { aac, ffmpeg, FFMPEG } from '../test-support/media-fixtures';
import { buildInitSegmentArgs, buildVideoSegmentArgs } from './encode-args';
import { buildLadder } from './ladder';
import { ChildProcessSet } from '../child-process-set';

const children = new ChildProcessSet();

// init.mp4 is served from a one-frame encode, and segments from full encodes: a player decodes
// every segment with that init, so the two must be byte-identical for every rung.

let dir: string;
let source: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'keyframe-init-'));
  source = path.join(dir, 'source.mp4');
  await ffmpeg(
    '-f', 'lavfi', '-i', 'testsrc2=size=1920x1080:rate=30:duration=6', '-f', 'lavfi', '-i', 'sine=duration=6',
    '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-g', '250', ...aac, source,
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const encode = async (args: string[]) => {
  const chunks: Buffer[] = [];
  const result = await runProcess({ command: FFMPEG, args, onStdout: (chunk) => chunks.push(chunk), children });
  expect(result.exitCode, result.stderr).toBe(0);
  return splitFragmentedMp4(Buffer.concat(chunks));
};

describe('init segment from one frame', () => {
  const rungs = buildLadder({ display: { width: 1920, height: 1080 }, frameRate: 30, encodingTier: 'smart', maxResolutionTier: '1080p' });
  test.each(rungs.map((rung) => [rung.name, rung] as const))('%s: same bytes as the init of a mid-file segment encode', async (_name, rung) => {
    const fromSegment = await encode(buildVideoSegmentArgs({ inputPath: source, rung, seekSeconds: 3.983, durationSeconds: 2 }));
    const fromLookaheadSeek = await encode(
      buildVideoSegmentArgs({ inputPath: source, rung, seekSeconds: 3.983, durationSeconds: 2, keyframeLookaheadSeconds: 0.025 }),
    );
    const fromOneFrame = await encode(buildInitSegmentArgs({ inputPath: source, rung }));
    expect(fromOneFrame.fragments).toHaveLength(1);
    expect(fromOneFrame.init.equals(fromSegment.init)).toBe(true);
    expect(fromOneFrame.init.equals(fromLookaheadSeek.init)).toBe(true);
  });
});
