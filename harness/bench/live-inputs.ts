import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { probeInputProperties, type InputProperties } from './inputs';
import { runCommand } from '../processes';
import { round } from '../stats';

// What the live publishers send: a pre-encoded H.264 + AAC file, looped in real time with stream
// copy (`-re -stream_loop -1 -c copy`), so a publisher costs almost no CPU and the box's cores go
// to what is measured. testsrc2 (flat colours, sharp edges) with a tone, a 1 s keyframe interval
// (reduced latency cuts 1 s segments at the source's keyframes), at the bit rates an encoder would
// send: x264 in ABR mode reaches them on this easy pattern by spending bits on fine quantisation,
// so the bytes are realistic but the pictures are much easier to encode than camera footage. The
// encoded rungs of the ladder therefore cost less here than they would with a real camera.
// Cached under bench/.work/live/ by a hash of the recipe.

export type LiveInputSpec = { label: string; width: number; height: number; videoKbps: number };

export const LIVE_720P: LiveInputSpec = { label: '720p30', width: 1280, height: 720, videoKbps: 3_000 };
export const LIVE_1080P: LiveInputSpec = { label: '1080p30', width: 1920, height: 1080, videoKbps: 5_500 };

const FRAME_RATE = 30;
const KEYFRAME_SECONDS = 1;
// Longer than any single publish of the benchmark (the latency runs last about 65 s), so the loop
// (whose audio/video seam gives the packager a non-monotonous timestamp to fix) is never reached.
const FILE_SECONDS = 120;

export type LiveInput = LiveInputSpec & {
  path: string;
  bytes: number;
  reused: boolean;
  generateMs: number | null;
  recipe: string[];
  properties: InputProperties | null;
};

export const liveInputArgs = (spec: LiveInputSpec, output: string): string[] => {
  const gop = String(FRAME_RATE * KEYFRAME_SECONDS);
  return [
    '-hide_banner', '-nostdin', '-v', 'error', '-y',
    '-f', 'lavfi', '-i', `testsrc2=size=${spec.width}x${spec.height}:rate=${FRAME_RATE}`,
    '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000',
    '-t', String(FILE_SECONDS),
    '-map', '0:v', '-map', '1:a',
    '-c:v', 'libx264', '-preset', 'veryfast', '-profile:v', 'high', '-pix_fmt', 'yuv420p',
    '-b:v', `${spec.videoKbps}k`, '-maxrate', `${Math.round(spec.videoKbps * 1.2)}k`, '-bufsize', `${spec.videoKbps * 2}k`,
    '-g', gop, '-keyint_min', gop, '-sc_threshold', '0',
    '-c:a', 'aac', '-b:a', '128k', '-ac', '2', '-ar', '48000',
    '-movflags', '+faststart',
    output,
  ];
};

export const ensureLiveInput = async ({ spec, workDir, log }: { spec: LiveInputSpec; workDir: string; log: (line: string) => void }): Promise<LiveInput> => {
  const dir = path.join(workDir, 'live');
  mkdirSync(dir, { recursive: true });
  const recipe = liveInputArgs(spec, '<output>');
  const hash = createHash('sha256').update(JSON.stringify(recipe)).digest('hex').slice(0, 10);
  const target = path.join(dir, `live-${spec.label}-${hash}.mp4`);
  let generateMs: number | null = null;
  const reused = existsSync(target);
  if (!reused) {
    log(`live: making the ${spec.label} publisher input (${FILE_SECONDS} s, ${spec.videoKbps} kb/s)…`);
    const partial = `${target}.partial.mp4`;
    const made = await runCommand('ffmpeg', liveInputArgs(spec, partial), { timeoutMs: 15 * 60_000 });
    if (made.code !== 0) {
      rmSync(partial, { force: true });
      throw new Error(`making the ${spec.label} live input failed: ${made.stderr.slice(-500)}`);
    }
    renameSync(partial, target);
    generateMs = round(made.wallMs, 0);
  }
  const properties = await probeInputProperties('ffprobe', target).catch(() => null);
  return { ...spec, path: target, bytes: statSync(target).size, reused, generateMs, recipe: ['ffmpeg', ...recipe], properties };
};
