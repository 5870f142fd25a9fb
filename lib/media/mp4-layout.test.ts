import { readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readMovieDurationSeconds, readMp4Layout } from './mp4-layout';
import { ffmpeg, x264 } from './test-support/media-fixtures';

let dir: string;

const make = async (name: string, extra: string[]) => {
  const file = path.join(dir, name);
  await ffmpeg('-f', 'lavfi', '-i', 'testsrc2=s=320x240:r=25', '-t', '2', ...x264, ...extra, file);
  return file;
};

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'keyframe-layout-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('readMp4Layout', () => {
  test('a faststart MP4 has its index first, and its end is where the moov box ends', async () => {
    const file = await make('faststart.mp4', ['-movflags', '+faststart']);
    const layout = await readMp4Layout(file, statSync(file).size);
    expect(layout.kind).toBe('index-first');
    if (layout.kind === 'index-first') expect(layout.indexEnd).toBeLessThan(statSync(file).size);
    expect(await readMp4Layout(file, 20)).toEqual({ kind: 'need-more' });
  });

  test('a plain MP4 (moov at the end), a fragmented MP4 and a non-MP4 file are told apart', async () => {
    const plain = await make('plain.mp4', []);
    const plainLayout = await readMp4Layout(plain, statSync(plain).size);
    expect(plainLayout.kind).toBe('index-last');
    // The index (moov) starts where the media data ends: that is where its 'moov' type sits.
    const mediaEnd = plainLayout.kind === 'index-last' ? plainLayout.mediaEnd : null;
    expect(mediaEnd).not.toBeNull();
    expect(readFileSync(plain).toString('latin1', mediaEnd! + 4, mediaEnd! + 8)).toBe('moov');
    const fragmented = await make('fragmented.mp4', ['-movflags', '+frag_keyframe+empty_moov']);
    expect(await readMp4Layout(fragmented, statSync(fragmented).size)).toEqual({ kind: 'fragmented' });
    const mkv = await make('clip.mkv', []);
    expect(await readMp4Layout(mkv, statSync(mkv).size)).toEqual({ kind: 'not-mp4' });
  });

  test('the movie duration is read from the index, wherever it sits', async () => {
    const faststart = await make('faststart-duration.mp4', ['-movflags', '+faststart']);
    const first = await readMp4Layout(faststart, statSync(faststart).size);
    if (first.kind !== 'index-first') throw new Error(`unexpected layout ${first.kind}`);
    expect(readFileSync(faststart).toString('latin1', first.indexStart + 4, first.indexStart + 8)).toBe('moov');
    expect(await readMovieDurationSeconds(faststart, first.indexStart, first.indexEnd)).toBeCloseTo(2, 1);

    const plain = await make('plain-duration.mp4', []);
    const last = await readMp4Layout(plain, statSync(plain).size);
    if (last.kind !== 'index-last' || last.mediaEnd === null) throw new Error(`unexpected layout ${last.kind}`);
    expect(await readMovieDurationSeconds(plain, last.mediaEnd, statSync(plain).size)).toBeCloseTo(2, 1);
    // Not an index there: no duration.
    expect(await readMovieDurationSeconds(plain, 0, last.mediaEnd)).toBeNull();
  });
});
