import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { GrowingFile } from '../../ingest/growing-file';
import { PartialSourceServer } from '../../ingest/partial-source-server';
import { writeFully } from '../../ingest/positional-file-sink';
import { probeMedia } from '../../media/probe-media';
import { aac, ffmpeg, FFMPEG, FFPROBE, writePrefix, x264 } from '../../media/test-support/media-fixtures';
import { inspectWhileDownloading, tailBytesFor, withCompleteFileSize } from './inspect-while-downloading';
import { childProcesses } from '../processes/child-processes';

const partialSources = new PartialSourceServer();
const activeProcessCount = () => childProcesses().size;

let dir: string;

const makeClip = async (name: string, movflags: string[]) => {
  const file = path.join(dir, name);
  await ffmpeg('-f', 'lavfi', '-i', 'testsrc2=s=640x360:r=25', '-f', 'lavfi', '-i', 'sine=f=440:r=48000', '-t', '8', ...x264, '-g', '50', '-b:v', '2M', '-c:a', 'aac', ...movflags, file);
  return file;
};

// A download in flight: the first fifth of `source` is in the part file; the rest is written by
// `finish`. The tail is "fetched" from the source file into the same part file, as a range
// request would.
const startDownload = async (
  source: string,
  name: string,
  { tailWorks = true, beforeTail = async () => undefined }: { tailWorks?: boolean; beforeTail?: () => Promise<void> } = {},
) => {
  const bytes = await readFile(source);
  const partPath = path.join(dir, `${name}.part`);
  const file = new GrowingFile(partPath, bytes.length);
  const handle = await open(partPath, 'w');
  const head = Math.floor(bytes.length / 5);
  await writeFully(handle, [bytes.subarray(0, head)], 0);
  file.advancePrefix(head);
  const served = await partialSources.serve(name, file, path.join(dir, name));
  const tailRequests: number[] = [];
  const fetchTail = async (start: number, end: number) => {
    tailRequests.push(start);
    await beforeTail();
    if (!tailWorks) throw new Error('the server did not serve the byte range');
    await writeFully(handle, [bytes.subarray(start, end)], start);
    file.addRange(start, end);
  };
  const finish = async () => {
    await writeFully(handle, [bytes.subarray(head)], head);
    await handle.close();
    file.complete();
    served.release();
  };
  return { file, inputUrl: served.url, fetchTail, finish, tailRequests };
};

const inspect = (download: Awaited<ReturnType<typeof startDownload>>) =>
  inspectWhileDownloading({
    file: download.file,
    inputUrl: download.inputUrl,
    fetchTail: download.fetchTail,
    ffprobePath: FFPROBE,
    ffmpegPath: FFMPEG,
    signal: new AbortController().signal,
    // The last 2 s GOP and then some; still far enough from the head to be worth a range request.
    tailBytes: Math.floor(download.file.totalBytes * 0.35),
  });

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'keyframe-early-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('tailBytesFor', () => {
  test('with a duration, the last 10 s at the average rate: the same for 30 s and 300 s at one bit rate', () => {
    const bytesPerSecond = 840_000;
    expect(tailBytesFor(300 * bytesPerSecond, 300)).toBe(tailBytesFor(30 * bytesPerSecond, 30));
    expect(tailBytesFor(300 * bytesPerSecond, 300)).toBe(10 * bytesPerSecond);
    // Without one, 8% of the file; always within 8-64 MiB.
    expect(tailBytesFor(250_000_000)).toBe(20_000_000);
    expect(tailBytesFor(1_000_000, 10)).toBe(8 * 1024 * 1024);
    expect(tailBytesFor(10_000_000_000, 60)).toBe(64 * 1024 * 1024);
  });
});

describe('inspectWhileDownloading', () => {
  test('a faststart MP4 is probed and both ends decoded from its first fifth and its tail, with the same probe as the whole file', async () => {
    const source = await makeClip('faststart.mp4', ['-movflags', '+faststart']);
    const download = await startDownload(source, 'faststart');
    const inspection = await inspect(download);
    expect(download.file.isComplete).toBe(false);
    await download.finish();
    expect(inspection?.decodedEnds).toEqual(['start', 'end']);
    expect(download.tailRequests).toHaveLength(1);
    const whole = await probeMedia({ ffprobePath: FFPROBE, inputPath: source, children: childProcesses() });
    expect(withCompleteFileSize(inspection!.probe, whole.sizeBytes!)).toEqual(whole);
  });

  test('an MP4 with its index at the end is probed from the fetched tail', async () => {
    const source = await makeClip('plain.mp4', []);
    const download = await startDownload(source, 'plain');
    const inspection = await inspect(download);
    expect(download.file.isComplete).toBe(false);
    await download.finish();
    expect(inspection?.decodedEnds).toEqual(['start', 'end']);
    expect(inspection?.probe.durationSeconds).toBeCloseTo(8, 1);
  });

  test('without range support a faststart MP4 gets its start checked early, and a moov-last one nothing', async () => {
    const faststart = await startDownload(await makeClip('faststart2.mp4', ['-movflags', '+faststart']), 'faststart2', { tailWorks: false });
    const early = await inspect(faststart);
    await faststart.finish();
    expect(early?.decodedEnds).toEqual(['start']);

    const plain = await startDownload(await makeClip('plain2.mp4', []), 'plain2', { tailWorks: false });
    const none = await inspect(plain);
    await plain.finish();
    expect(none).toBeNull();
  });

  test('the probe and both keyframe checks are already running while the tail is on its way', async () => {
    // Nothing of a moov-last file can be read before its tail arrives, so whatever runs then was
    // started without waiting for it (or for the probe).
    let runningBeforeTail = 0;
    const beforeTail = async () => {
      for (let waited = 0; waited < 10_000 && runningBeforeTail < 3; waited += 20) {
        runningBeforeTail = Math.max(runningBeforeTail, activeProcessCount());
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const download = await startDownload(await makeClip('plain3.mp4', []), 'plain3', { beforeTail });
    const inspection = await inspect(download);
    await download.finish();
    expect(runningBeforeTail).toBe(3);
    expect(inspection?.decodedEnds).toEqual(['start', 'end']);
  });

  test('waiting for a CPU slot, no check runs and the download is not held, but the tail is fetched', async () => {
    const download = await startDownload(await makeClip('slot.mp4', ['-movflags', '+faststart']), 'slot');
    let grant = () => undefined as void;
    const slotFree = new Promise<void>((resolve) => (grant = resolve));
    const holds: number[] = [];
    let processesInSlot = 0;
    const inspection = inspectWhileDownloading({
      file: download.file,
      inputUrl: download.inputUrl,
      fetchTail: download.fetchTail,
      ffprobePath: FFPROBE,
      ffmpegPath: FFMPEG,
      signal: new AbortController().signal,
      tailBytes: Math.floor(download.file.totalBytes * 0.35),
      holdDownload: (fromByte) => holds.push(fromByte),
      runChecks: async (checks) => {
        await slotFree;
        const result = checks();
        await new Promise((resolve) => setTimeout(resolve, 30));
        processesInSlot = activeProcessCount();
        return result;
      },
    });
    for (let waited = 0; waited < 5_000 && download.tailRequests.length === 0; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(download.tailRequests.length).toBe(1);
    expect(activeProcessCount()).toBe(0);
    expect(holds).toEqual([]);
    grant();
    const result = await inspection;
    await download.finish();
    expect(processesInSlot).toBeGreaterThan(0);
    expect(holds.length).toBe(1);
    expect(result?.decodedEnds).toEqual(['start', 'end']);
    expect(activeProcessCount()).toBe(0);
  });

  test('when the tail fails, the check of the end that waited for it is stopped: nothing keeps running', async () => {
    const download = await startDownload(await makeClip('faststart3.mp4', ['-movflags', '+faststart']), 'faststart3', { tailWorks: false });
    const inspection = await inspect(download);
    expect(activeProcessCount()).toBe(0);
    await download.finish();
    expect(inspection?.decodedEnds).toEqual(['start']);
  });

  test('an audio-only MP4 is checked at both ends by decoding its audio once the probe tells', async () => {
    const source = path.join(dir, 'audio.m4a');
    await ffmpeg('-f', 'lavfi', '-i', 'sine=f=440:r=48000', '-t', '8', ...aac, '-b:a', '256k', '-movflags', '+faststart', source);
    const download = await startDownload(source, 'audio');
    const inspection = await inspect(download);
    await download.finish();
    expect(inspection?.probe.video).toEqual([]);
    expect(inspection?.decodedEnds).toEqual(['start', 'end']);
  });

  test('a faststart MP4 whose data stops short is not passed at its end early (the complete file decides)', async () => {
    const cut = path.join(dir, 'cut.mp4');
    await writePrefix(await makeClip('whole.mp4', ['-movflags', '+faststart']), cut, 0.7);
    const download = await startDownload(cut, 'cut');
    const inspection = await inspect(download);
    await download.finish();
    expect(inspection?.decodedEnds).not.toContain('end');
  });
});
