import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { Fmp4StreamSplitter } from '../fmp4';
import { runProcess } from '../run-process';
import { FFMPEG, FFPROBE } from '../test-support/media-fixtures';
import { ChildProcessSet } from '../child-process-set';

const children = new ChildProcessSet();

// Shared by the live media tests: running the live packager the way the runtime will (one ffmpeg,
// one pipe per rung, split into init + fragments as bytes arrive), and asking ffmpeg's own tools
// about the results, so assertions do not rest on the parsers under test.

export type RungOutput = { init: Buffer; fragments: Buffer[] };

/**
 * `stopAfterMs`: for an endless input (a slate), stop ffmpeg with SIGTERM then, as the runtime does.
 * `rawFd`: one more output pipe, read whole into `raw` (the captions' PCM).
 * `ranMs`: spawn to exit, what a paced output is bounded by (a loaded machine fires the timer late).
 */
export const runLivePackager = async (
  args: string[],
  outputFds: number[],
  { stopAfterMs, rawFd }: { stopAfterMs?: number; rawFd?: number } = {},
): Promise<{ rungs: RungOutput[]; progress: string; stderr: string; ranMs: number; raw: Buffer }> => {
  const startedAt = performance.now();
  const lastFd = Math.max(...outputFds, rawFd ?? 0);
  const child = spawn(FFMPEG, args, { stdio: ['ignore', 'pipe', 'pipe', ...Array.from({ length: lastFd - 2 }, () => 'pipe' as const)] });
  const rawChunks: Buffer[] = [];
  if (rawFd !== undefined) (child.stdio[rawFd] as Readable).on('data', (chunk: Buffer) => rawChunks.push(chunk));
  const stopTimer = stopAfterMs === undefined ? null : setTimeout(() => child.kill('SIGTERM'), stopAfterMs);
  let progress = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (progress += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const rungs = outputFds.map((fd) => {
    const output: RungOutput = { init: Buffer.alloc(0), fragments: [] };
    const splitter = new Fmp4StreamSplitter({
      onInit: (init) => (output.init = init),
      onFragment: (fragment) => output.fragments.push(fragment),
    });
    const pipe = child.stdio[fd] as Readable;
    const ended = new Promise<void>((resolve, reject) => {
      pipe.on('data', (chunk: Buffer) => splitter.push(chunk));
      pipe.on('end', () => {
        try {
          splitter.end();
          resolve();
        } catch (error) {
          reject(error);
        }
      });
      pipe.on('error', reject);
    });
    return { output, ended };
  });
  const exitCode = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const ranMs = performance.now() - startedAt;
  if (stopTimer) clearTimeout(stopTimer);
  await Promise.all(rungs.map((rung) => rung.ended));
  // ffmpeg exits with 255 when a signal stopped it.
  const stoppedAsAsked = stopAfterMs !== undefined && exitCode === 255;
  if (exitCode !== 0 && !stoppedAsAsked) throw new Error(`live packager exited with ${exitCode}: ${stderr}`);
  return { rungs: rungs.map((rung) => rung.output), progress, stderr, ranMs, raw: Buffer.concat(rawChunks) };
};

const run = async (command: string, args: string[]) => {
  const result = await runProcess({ command, args, children });
  if (result.exitCode !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr}`);
  return result;
};

export const probeJson = async (file: string, entries: string): Promise<{ streams: Record<string, string | number>[]; format?: Record<string, string> }> =>
  JSON.parse((await run(FFPROBE, ['-v', 'error', '-show_entries', entries, '-of', 'json', file])).stdout) as {
    streams: Record<string, string | number>[];
    format?: Record<string, string>;
  };

/** The avc1 codec string of a file's first video stream, from its SPS as ffmpeg's trace_headers reads it. */
export const spsAvc1 = async (file: string): Promise<string> => {
  const { stderr } = await run(FFMPEG, ['-hide_banner', '-i', file, '-map', '0:v:0', '-c', 'copy', '-bsf:v', 'trace_headers', '-f', 'null', '-']);
  const field = (name: string) => Number(new RegExp(`${name}\\s+\\S+ = (\\d+)`).exec(stderr)?.[1]);
  const constraints = [0, 1, 2, 3, 4, 5].reduce((byte, index) => byte | (field(`constraint_set${index}_flag`) << (7 - index)), 0);
  const hex = (value: number) => value.toString(16).padStart(2, '0');
  return `avc1.${hex(field('profile_idc'))}${hex(constraints)}${hex(field('level_idc'))}`;
};

/** ffmpeg's stderr when decoding the whole file; empty when every frame decodes cleanly. */
export const decodeErrors = async (file: string): Promise<string> => (await run(FFMPEG, ['-hide_banner', '-v', 'error', '-i', file, '-f', 'null', '-'])).stderr;
