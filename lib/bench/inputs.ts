import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { runCommand } from './processes';
import { errorMessage } from './stats';

// Synthetic 1080p30 H.264 High + AAC inputs, generated with ffmpeg's lavfi sources and cached under
// bench/.work/ (git-ignored). The file name carries a hash of the recipe, so a changed recipe never
// reuses a stale file; a file is only renamed into place once ffmpeg has finished it.

export type BenchInput = {
  durationSeconds: number;
  path: string;
  bytes: number;
  reused: boolean;
  generateMs: number | null;
  probedDurationSeconds: number | null;
};

export const inputArgs = (durationSeconds: number, output: string): string[] => [
  '-hide_banner',
  '-nostdin',
  '-v',
  'error',
  '-y',
  '-f',
  'lavfi',
  '-i',
  'testsrc2=size=1920x1080:rate=30',
  '-f',
  'lavfi',
  '-i',
  'sine=frequency=440:sample_rate=48000',
  '-t',
  String(durationSeconds),
  '-c:v',
  'libx264',
  '-preset',
  'superfast',
  '-b:v',
  '6M',
  '-maxrate',
  '8M',
  '-bufsize',
  '12M',
  '-pix_fmt',
  'yuv420p',
  '-g',
  '60',
  '-c:a',
  'aac',
  '-b:a',
  '128k',
  '-movflags',
  '+faststart',
  '-f',
  'mp4',
  output,
];

const probeDuration = async (ffprobe: string, file: string): Promise<number | null> => {
  const result = await runCommand(ffprobe, ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file], {
    timeoutMs: 60_000,
  });
  const value = Number(result.stdout.trim());
  return result.code === 0 && Number.isFinite(value) ? value : null;
};

export const ensureInput = async ({
  durationSeconds,
  workDir,
  ffmpeg,
  ffprobe,
  log,
}: {
  durationSeconds: number;
  workDir: string;
  ffmpeg: string;
  ffprobe: string;
  log: (line: string) => void;
}): Promise<BenchInput> => {
  mkdirSync(workDir, { recursive: true });
  const recipe = createHash('sha256').update(JSON.stringify(inputArgs(durationSeconds, 'OUT'))).digest('hex').slice(0, 10);
  const target = path.join(workDir, `input-1080p30-${durationSeconds}s-${recipe}.mp4`);

  if (existsSync(target)) {
    const probed = await probeDuration(ffprobe, target);
    if (probed !== null && Math.abs(probed - durationSeconds) < 1) {
      log(`input ${durationSeconds} s: reusing ${path.relative(process.cwd(), target)}`);
      return { durationSeconds, path: target, bytes: statSync(target).size, reused: true, generateMs: null, probedDurationSeconds: probed };
    }
    log(`input ${durationSeconds} s: cached file is unreadable or has the wrong duration (${probed}); regenerating`);
    rmSync(target, { force: true });
  }

  log(`input ${durationSeconds} s: generating with ffmpeg (the 300 s one takes a few minutes)…`);
  const partial = `${target}.partial-${process.pid}.mp4`;
  try {
    const result = await runCommand(ffmpeg, inputArgs(durationSeconds, partial), { timeoutMs: 60 * 60_000 });
    if (result.code !== 0) throw new Error(`ffmpeg exited with ${result.signal ?? result.code}: ${result.stderr.trim().slice(-800)}`);
    renameSync(partial, target);
    const probed = await probeDuration(ffprobe, target);
    log(`input ${durationSeconds} s: generated in ${(result.wallMs / 1000).toFixed(1)} s`);
    return {
      durationSeconds,
      path: target,
      bytes: statSync(target).size,
      reused: false,
      generateMs: result.wallMs,
      probedDurationSeconds: probed,
    };
  } catch (error) {
    rmSync(partial, { force: true });
    throw new Error(`could not generate the ${durationSeconds} s input: ${errorMessage(error)}`);
  }
};
