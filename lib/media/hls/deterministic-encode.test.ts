import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { overlaySettingsSchema } from '../../schemas/overlay-settings';
import { splitFragmentedMp4 } from '../fmp4';
import { runProcess } from '../run-process';
import { ffmpeg, FFMPEG, FFPROBE } from '../test-support/media-fixtures';
import { buildInitSegmentArgs, buildVideoSegmentArgs } from './encode-args';
import { buildLadder, type Rung } from './ladder';
import { buildSegmentPlan, encodeWindow } from './segment-plan';
import { ChildProcessSet } from '../child-process-set';

const children = new ChildProcessSet();

// Segments are served `immutable`, so a re-encode (after eviction, a restart, on another machine)
// must give the bytes of the first encode, or a cache that kept one copy mixes two encodes. With
// libx264's default thread count the bytes changed from run to run (frame threads and VBV race)
// and with the number of CPUs the process may use (which sets the thread count): here one segment
// is encoded twice at once and once on a single CPU, as on a smaller machine, and all must match.

let dir: string;
let source: string;
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const canPin = os.availableParallelism() > 1 && spawnSync('taskset', ['-c', '0', 'true']).status === 0;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'keyframe-determinism-'));
  source = path.join(dir, 'source.mp4');
  await ffmpeg('-f', 'lavfi', '-i', 'color=c=red@0.5:size=64x32,format=rgba', '-frames:v', '1', path.join(dir, 'watermark.png'));
  await ffmpeg(
    '-f', 'lavfi', '-i', 'testsrc2=size=2560x1440:rate=30:duration=4',
    '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-g', '30', source,
  );
}, 120_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

const encode = async (args: string[], { pinToOneCpu = false } = {}): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  const result = await runProcess({
    command: pinToOneCpu ? 'taskset' : FFMPEG,
    args: pinToOneCpu ? ['-c', '0', FFMPEG, ...args] : args,
    onStdout: (chunk) => chunks.push(chunk),
    children,
  });
  expect(result.exitCode, result.stderr).toBe(0);
  return Buffer.concat(chunks);
};

const rungs = buildLadder({ display: { width: 2560, height: 1440 }, frameRate: 30, encodingTier: 'smart', maxResolutionTier: '1440p' });
const rung = (name: string): Rung => {
  const found = rungs.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no ${name} rung in ${rungs.map((candidate) => candidate.name).join(', ')}`);
  return found;
};
const plan = buildSegmentPlan({ duration: 4, frameRate: 30, constantFrameRate: true });

describe('re-encoding a segment gives the same bytes', () => {
  // 540p (veryfast), 1080p (superfast) and 1440p (a background rung, veryfast).
  test.each(['540p', '1080p', '1440p'])('%s: twice at once, and on one CPU', async (name) => {
    const args = buildVideoSegmentArgs({ inputPath: source, rung: rung(name), ...encodeWindow(plan, 1) });
    const [first, second] = await Promise.all([encode(args), encode(args)]);
    const pinned = canPin ? await encode(args, { pinToOneCpu: true }) : first;
    expect(splitFragmentedMp4(first!).fragments.length).toBeGreaterThan(0);
    expect({ second: sha256(second!), oneCpu: sha256(pinned) }).toEqual({ second: sha256(first!), oneCpu: sha256(first!) });
  }, 180_000);
});

describe('init segments', () => {
  test('carry no ffmpeg version: the same bytes from any ffmpeg build with the same x264', async () => {
    const { init } = splitFragmentedMp4(await encode(buildInitSegmentArgs({ inputPath: source, rung: rung('540p') })));
    const text = init.toString('latin1');
    expect(text).not.toMatch(/Lavf\d/);
    expect(text).not.toMatch(/Lavc\d/);
  }, 60_000);
});

// The frame times of an encoded segment, from ffprobe (the output written to a file first).
const packetTimes = async (output: Buffer, name: string): Promise<string> => {
  const file = path.join(dir, name);
  await writeFile(file, output);
  const probe = await runProcess({ command: FFPROBE, args: ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'packet=pts', '-of', 'csv=p=0', file], children });
  expect(probe.exitCode, probe.stderr).toBe(0);
  return probe.stdout.trim();
};

describe('a watermarked segment', () => {
  test('is bit-exact across encodes, with the frames and timestamps of the plain one', async () => {
    const overlays = [
      { path: path.join(dir, 'watermark.png'), width: 64, height: 32, settings: overlaySettingsSchema.parse({ vertical_align: 'bottom', opacity: '50%' }) },
    ];
    const window = encodeWindow(plan, 1);
    const marked = buildVideoSegmentArgs({ inputPath: source, rung: rung('540p'), ...window, overlays });
    const [first, second, plain] = await Promise.all([encode(marked), encode(marked), encode(buildVideoSegmentArgs({ inputPath: source, rung: rung('540p'), ...window }))]);
    expect(sha256(second!)).toBe(sha256(first!));
    expect(sha256(first!)).not.toBe(sha256(plain!));
    const times = await packetTimes(first!, 'marked.mp4');
    expect(times.split('\n').length).toBeGreaterThan(50);
    expect(times).toBe(await packetTimes(plain!, 'plain.mp4'));
    // The init segment (codec configuration) is the plain one's: players may switch between them freely.
    expect(splitFragmentedMp4(first!).init.equals(splitFragmentedMp4(plain!).init)).toBe(true);
  }, 180_000);
});
