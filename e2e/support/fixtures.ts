import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { readFile, rename, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

// Media generated at test time with the real ffmpeg, so the suite never depends on files that
// may be missing from a fresh clone. Generated once per run (by the global setup, which exports
// the directory in KEYFRAME_E2E_FIXTURES_DIR) and reused by every worker.

const run = promisify(execFile);

export const FIXTURES_DIR_ENV = 'KEYFRAME_E2E_FIXTURES_DIR';
const MANIFEST = 'fixtures.json';
const FFMPEG = process.env.E2E_FFMPEG ?? 'ffmpeg';
const FFPROBE = process.env.E2E_FFPROBE ?? 'ffprobe';

export const FIXTURE_FILES = {
  /** H.264 1280x720 30 fps + AAC stereo 48 kHz, 4 s, faststart. */
  video720p: 'testsrc2_h264_aac_720p_4s.mp4',
  /** H.264 320x240 30 fps + AAC stereo, 1 s: cheap to ingest in bulk. */
  videoSmall: 'testsrc2_h264_aac_240p_1s.mp4',
  /** AAC stereo 48 kHz, 3 s, no video. */
  audioOnly: 'sine_aac_stereo_3s.m4a',
  /** 256 KiB of random bytes with an .mp4 name. */
  corrupt: 'corrupt_random_bytes.mp4',
  /** A plain text file. */
  text: 'notes.txt',
  /** Zero bytes. */
  empty: 'empty.mp4',
  /** The first 50 % of the faststart 720p MP4. */
  truncated: 'truncated_half_720p.mp4',
} as const;

export type FixtureName = keyof typeof FIXTURE_FILES;

export type Fixtures = {
  dir: string;
  /** Absolute path of a generated fixture. */
  path: (name: FixtureName) => string;
  /** File name of a generated fixture (what the media server serves it as). */
  file: (name: FixtureName) => string;
};

const lavfi = (args: string[]) => ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', ...args];

const writeAtomically = async (target: string, produce: (tmp: string) => Promise<void>) => {
  const tmp = `${target}.tmp-${process.pid}${path.extname(target)}`;
  await produce(tmp);
  await rename(tmp, target);
};

const encodeTestVideo = (target: string, size: string, seconds: number) =>
  writeAtomically(target, (tmp) =>
    run(
      FFMPEG,
      lavfi([
        '-f', 'lavfi', '-i', `testsrc2=size=${size}:rate=30`,
        '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000',
        '-t', String(seconds),
        '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p',
        '-c:a', 'aac', '-ac', '2',
        '-movflags', '+faststart',
        tmp,
      ]),
    ).then(() => undefined),
  );

export const generateFixtures = async (dir: string): Promise<void> => {
  const at = (name: FixtureName) => path.join(dir, FIXTURE_FILES[name]);
  await Promise.all([
    encodeTestVideo(at('video720p'), '1280x720', 4),
    encodeTestVideo(at('videoSmall'), '320x240', 1),
    writeAtomically(at('audioOnly'), (tmp) =>
      run(
        FFMPEG,
        lavfi(['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000', '-t', '3', '-ac', '2', '-c:a', 'aac', tmp]),
      ).then(() => undefined),
    ),
    writeFile(at('corrupt'), randomBytes(256 * 1024)),
    writeFile(at('text'), 'This is not a video.\nJust some notes about Keyframe test inputs.\n'),
    writeFile(at('empty'), ''),
  ]);
  const full = await readFile(at('video720p'));
  await writeFile(at('truncated'), full.subarray(0, Math.floor(full.length / 2)));
  await writeFile(path.join(dir, MANIFEST), JSON.stringify(FIXTURE_FILES, null, 2));
};

const fixturesIn = (dir: string): Fixtures => ({
  dir,
  path: (name) => path.join(dir, FIXTURE_FILES[name]),
  file: (name) => FIXTURE_FILES[name],
});

let ownFixtures: Promise<Fixtures> | undefined;

/**
 * The generated fixtures: the run-wide directory when the global setup made one, otherwise a
 * private temp directory for this process (removed when it exits).
 */
export const ensureFixtures = (): Promise<Fixtures> => {
  const shared = process.env[FIXTURES_DIR_ENV];
  if (shared && existsSync(path.join(shared, MANIFEST))) return Promise.resolve(fixturesIn(shared));
  ownFixtures ??= (async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'keyframe-e2e-fixtures-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    await generateFixtures(dir);
    return fixturesIn(dir);
  })();
  return ownFixtures;
};

/** Container duration in seconds as ffprobe reports it. */
export const probeDuration = async (file: string): Promise<number> => {
  const { stdout } = await run(FFPROBE, [
    '-v', 'error', '-show_entries', 'format=duration', '-of', 'default=noprint_wrappers=1:nokey=1', file,
  ]);
  const duration = Number.parseFloat(stdout.trim());
  if (!Number.isFinite(duration)) throw new Error(`ffprobe reported no duration for ${file}: ${stdout}`);
  return duration;
};

export const fileSize = async (file: string): Promise<number> => (await stat(file)).size;
