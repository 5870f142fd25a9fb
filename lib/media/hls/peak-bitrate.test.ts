import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ChildProcessSet } from '../child-process-set';
import { splitFragmentedMp4 } from '../fmp4';
import { runProcess } from '../run-process';
import { ffmpeg, FFMPEG } from '../test-support/media-fixtures';
import { buildVideoSegmentArgs } from './encode-args';
import { buildLadder } from './ladder';
import { densestWindow, segmentPeakBitrate } from './peak-bitrate';
import { targetDurationOf } from './playlists';
import { buildSegmentPlan, encodeWindow } from './segment-plan';

describe('densestWindow', () => {
  test('the RFC 8216bis window: runs of segments lasting 0.5–1.5 × the target duration', () => {
    // Target 4: a 2 s segment alone is a window (1 segment per 2 s); 4 + 0.5 is one too.
    expect(densestWindow([2, 2, 4, 4, 4, 0.5], 4)).toEqual({ segments: 1, seconds: 2 });
    expect(densestWindow([4, 4, 1.5, 1.5], 4)).toEqual({ segments: 2, seconds: 3 });
  });

  test('a video shorter than half the target is one window', () => {
    expect(densestWindow([1.5], 4)).toEqual({ segments: 1, seconds: 1.5 });
  });
});

describe('segmentPeakBitrate', () => {
  const [rung] = buildLadder({ display: { width: 640, height: 360 }, frameRate: 30, encodingTier: 'smart', maxResolutionTier: '1080p' });

  test('maxrate plus half the buffer over the densest window, and the fMP4 framing', () => {
    // 270p: cap 360 kb/s, buffer 180 kbit; a 2 s window: (0.5 × 180,000 + 2 × 360,000) / 2 plus framing.
    expect(rung!.maxBitrate).toBe(360_000);
    expect(segmentPeakBitrate(rung!, [2, 2, 4], 4)).toBe(405_000 + Math.ceil((8 * (256 + 61 * 16)) / 2));
  });

  test('none for a rung of a plan made before capped CRF', () => {
    expect(segmentPeakBitrate({ ...rung!, rateControl: undefined }, [2, 2, 4], 4)).toBeNull();
  });
});

// The bound is only worth declaring if x264 keeps it: grain (every pixel changes every frame) at a
// low rung makes every segment spend all the cap and buffer allow.
describe('segments of hard content stay under the declared peak', () => {
  const children = new ChildProcessSet();
  let dir: string;
  let source: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'keyframe-peak-'));
    source = path.join(dir, 'grain.mp4');
    await ffmpeg(
      '-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=30:duration=8,noise=alls=40:allf=t+u',
      '-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '10', '-pix_fmt', 'yuv420p', '-g', '30', source,
    );
  }, 120_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  test('every segment of every rung', async () => {
    const plan = buildSegmentPlan({ duration: 8, frameRate: 30, constantFrameRate: true });
    const durations = plan.segments.map((segment) => segment.duration);
    const rungs = buildLadder({ display: { width: 640, height: 360 }, frameRate: 30, encodingTier: 'smart', maxResolutionTier: '1080p' });
    for (const rung of rungs) {
      const peak = segmentPeakBitrate(rung, durations, targetDurationOf(durations))!;
      for (const [index, segment] of plan.segments.entries()) {
        const chunks: Buffer[] = [];
        const result = await runProcess({
          command: FFMPEG,
          args: buildVideoSegmentArgs({ inputPath: source, rung, ...encodeWindow(plan, index) }),
          onStdout: (chunk) => chunks.push(chunk),
          children,
        });
        expect(result.exitCode, result.stderr).toBe(0);
        const media = splitFragmentedMp4(Buffer.concat(chunks)).fragments.reduce((sum, fragment) => sum + fragment.length, 0);
        const bitrate = (media * 8) / segment.duration;
        // Grain really meets the cap (else this proves nothing), and never passes the declared peak.
        expect(bitrate, `${rung.name} segment ${index}`).toBeGreaterThan(0.8 * rung.maxBitrate);
        expect(bitrate, `${rung.name} segment ${index}`).toBeLessThanOrEqual(peak);
      }
    }
  }, 180_000);
});
