import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { probeMedia } from '../../media/probe-media';
import { ffmpeg, FFMPEG, FFPROBE, x264 } from '../../media/test-support/media-fixtures';
import { inspectWhileDownloading, withCompleteFileSize } from './inspect-while-downloading';

let dir: string;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const makeClip = async (name: string, movflags: string[]) => {
  const file = path.join(dir, name);
  await ffmpeg('-f', 'lavfi', '-i', 'testsrc2=s=640x360:r=25', '-t', '8', ...x264, '-b:v', '2M', ...movflags, file);
  return file;
};

// Writes the first part of `source` to `target`, then the rest after `pauseMs`: a download in flight.
const simulateDownload = async (source: string, target: string, pauseMs: number, state: { finished: boolean }) => {
  const bytes = await readFile(source);
  const half = Math.floor(bytes.length / 2);
  await writeFile(target, bytes.subarray(0, half));
  await sleep(pauseMs);
  await appendFile(target, bytes.subarray(half));
  state.finished = true;
};

const inspect = (partPath: string, state: { finished: boolean }) =>
  inspectWhileDownloading({
    partPath,
    downloadFinished: () => state.finished,
    ffprobePath: FFPROBE,
    ffmpegPath: FFMPEG,
    signal: new AbortController().signal,
    startMarginBytes: 64 * 1024,
  });

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'keyframe-early-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('inspectWhileDownloading', () => {
  test('a faststart MP4 is probed and its start decoded from the first half, with the same probe as the whole file', async () => {
    const source = await makeClip('faststart.mp4', ['-movflags', '+faststart']);
    const part = path.join(dir, 'faststart.part');
    const state = { finished: false };
    const download = simulateDownload(source, part, 1500, state);
    const inspection = await inspect(part, state);
    // Done before the second half arrived.
    expect(state.finished).toBe(false);
    await download;
    expect(inspection).not.toBeNull();
    expect(inspection?.startDecoded).toBe(true);
    const whole = await probeMedia({ ffprobePath: FFPROBE, inputPath: source });
    expect(withCompleteFileSize(inspection!.probe, whole.sizeBytes!)).toEqual(whole);
    expect(inspection?.probe.durationSeconds).toBeCloseTo(8, 1);
  });

  test('an MP4 with its index at the end waits for the whole file (null)', async () => {
    const source = await makeClip('plain.mp4', []);
    const part = path.join(dir, 'plain.part');
    const state = { finished: false };
    const download = simulateDownload(source, part, 300, state);
    const inspection = await inspect(part, state);
    await download;
    expect(inspection).toBeNull();
  });
});
