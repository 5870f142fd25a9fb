import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ownDirectory, releaseDirectory, runCommand } from '../processes';
import { round } from '../stats';

// The peer baseline: what a conventional pipeline does before a video is playable, i.e. encode the
// whole ladder up front. One ffmpeg run decodes the source once, splits it five ways and encodes
// every rung plus the audio into fMP4 HLS with -var_stream_map. Same rungs and bitrates as the
// server's 1080p ladder (maxrate 1.5×, bufsize 2× as the server uses), libx264 veryfast, High
// profile, 2 s GOP without scene-cut keyframes, AAC 128 kb/s stereo.

export const BASELINE_RUNGS = [
  { name: '270p', width: 480, height: 270, kbps: 400 },
  { name: '360p', width: 640, height: 360, kbps: 800 },
  { name: '540p', width: 960, height: 540, kbps: 1_600 },
  { name: '720p', width: 1280, height: 720, kbps: 2_500 },
  { name: '1080p', width: 1920, height: 1080, kbps: 4_500 },
] as const;

const GOP_FRAMES = 60; // 2 s at 30 fps
const HLS_SEGMENT_SECONDS = 4; // the server's steady-state segment length

export const baselineArgs = (inputPath: string, outputDir: string): string[] => {
  const count = BASELINE_RUNGS.length;
  const splits = BASELINE_RUNGS.map((_, index) => `[s${index}]`).join('');
  const scales = BASELINE_RUNGS.map(
    (rung, index) => `[s${index}]scale=${rung.width}:${rung.height}:flags=bicubic,format=yuv420p[o${index}]`,
  ).join(';');
  const perRung = BASELINE_RUNGS.flatMap((rung, index) => [
    `-b:v:${index}`,
    `${rung.kbps}k`,
    `-maxrate:v:${index}`,
    `${Math.round(rung.kbps * 1.5)}k`,
    `-bufsize:v:${index}`,
    `${rung.kbps * 2}k`,
  ]);
  const streamMap = [
    ...BASELINE_RUNGS.map((rung, index) => `v:${index},agroup:aud,name:${rung.name}`),
    'a:0,agroup:aud,name:audio',
  ].join(' ');
  return [
    '-hide_banner',
    '-nostdin',
    '-v',
    'error',
    '-y',
    '-i',
    inputPath,
    '-filter_complex',
    `[0:v]split=${count}${splits};${scales}`,
    ...BASELINE_RUNGS.flatMap((_, index) => ['-map', `[o${index}]`]),
    '-map',
    '0:a:0',
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-profile:v',
    'high',
    '-g',
    String(GOP_FRAMES),
    '-keyint_min',
    String(GOP_FRAMES),
    '-sc_threshold',
    '0',
    ...perRung,
    '-c:a',
    'aac',
    '-b:a',
    '128k',
    '-ac',
    '2',
    '-ar',
    '48000',
    '-f',
    'hls',
    '-hls_time',
    String(HLS_SEGMENT_SECONDS),
    '-hls_playlist_type',
    'vod',
    '-hls_segment_type',
    'fmp4',
    '-hls_fmp4_init_filename',
    'init.mp4',
    '-hls_segment_filename',
    path.join(outputDir, '%v', '%d.m4s'),
    '-master_pl_name',
    'master.m3u8',
    '-var_stream_map',
    streamMap,
    path.join(outputDir, '%v', 'index.m3u8'),
  ];
};

export type BaselineResult = {
  method: string;
  command: string;
  wallMs: number;
  exitCode: number | null;
  realtimeFactor: number | null;
  outputs: Array<{ rendition: string; segments: number; bytes: number }>;
  stderrTail: string;
};

const summariseOutput = (outputDir: string): BaselineResult['outputs'] =>
  readdirSync(outputDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => {
      const files = readdirSync(path.join(outputDir, entry.name));
      return {
        rendition: entry.name,
        segments: files.filter((file) => file.endsWith('.m4s')).length,
        bytes: files.reduce((sum, file) => sum + statSync(path.join(outputDir, entry.name, file)).size, 0),
      };
    })
    .sort((a, b) => a.rendition.localeCompare(b.rendition, 'en', { numeric: true }));

export const runBaseline = async ({
  ffmpeg,
  inputPath,
  inputDurationSeconds,
  log,
}: {
  ffmpeg: string;
  inputPath: string;
  inputDurationSeconds: number;
  log: (line: string) => void;
}): Promise<BaselineResult> => {
  const outputDir = ownDirectory(mkdtempSync(path.join(os.tmpdir(), 'keyframe-bench-baseline-')));
  try {
    const args = baselineArgs(inputPath, outputDir);
    log(`baseline: full-ladder ffmpeg HLS encode of the ${inputDurationSeconds} s input (takes minutes)…`);
    const result = await runCommand(ffmpeg, args, { timeoutMs: 2 * 60 * 60_000 });
    if (result.code !== 0) throw new Error(`baseline ffmpeg exited with ${result.signal ?? result.code}: ${result.stderr.trim().slice(-800)}`);
    log(`baseline: ${(result.wallMs / 1000).toFixed(1)} s`);
    return {
      method: 'one ffmpeg run: -filter_complex split=5 + -f hls -var_stream_map (fMP4 segments, 4 s)',
      command: ['ffmpeg', ...args.map((arg) => (/[\s;[\]"]/.test(arg) ? `'${arg}'` : arg))].join(' ').split(outputDir).join('<out>'),
      wallMs: round(result.wallMs, 0),
      exitCode: result.code,
      realtimeFactor: round(inputDurationSeconds / (result.wallMs / 1000), 2),
      outputs: summariseOutput(outputDir),
      stderrTail: result.stderr.trim().slice(-500),
    };
  } finally {
    releaseDirectory(outputDir);
  }
};
