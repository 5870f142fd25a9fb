import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runProcess } from '../run-process';
import { ChildProcessSet } from '../child-process-set';

const children = new ChildProcessSet();

// Shared by the media tests: the real ffmpeg, and the sample media folder that sits next to the
// repository in CI (absent on a fresh clone, so tests using it are skipped there).

export const FFMPEG = 'ffmpeg';
export const FFPROBE = 'ffprobe';
export const SHARED_MEDIA = path.resolve(__dirname, '../../../../shared/media');

export const x264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'];
export const aac = ['-c:a', 'aac', '-ac', '2'];

export const ffmpeg = async (...args: string[]): Promise<void> => {
  const result = await runProcess({ command: FFMPEG, args: ['-hide_banner', '-v', 'error', '-y', ...args], children });
  if (result.exitCode !== 0) throw new Error(`ffmpeg ${args.join(' ')} failed: ${result.stderr}`);
};

// Keeps the first `fraction` of a file's bytes: a download cut short.
export const writePrefix = async (source: string, target: string, fraction: number): Promise<void> => {
  const bytes = await readFile(source);
  await writeFile(target, bytes.subarray(0, Math.floor(bytes.length * fraction)));
};
