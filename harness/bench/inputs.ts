import { createHash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { runCommand } from '../processes';
import { errorMessage, median, round } from '../stats';

// Synthetic 1080p30 H.264 High + AAC inputs, generated with ffmpeg's lavfi sources and cached under
// bench/.work/ (git-ignored). The file name carries a hash of the recipe, so a changed recipe never
// reuses a stale file; a file is only renamed into place once ffmpeg has finished it.
//
// Two kinds:
//  - clean: `testsrc2` (flat colours, sharp edges) encoded `superfast` at ~6 Mb/s, moov first.
//    Cheap to decode and to probe; the numbers every earlier run reported.
//  - camera: what a phone or camera writes. The same pattern with strong temporal + uniform noise
//    (film grain, sensor noise: every frame differs everywhere, so the encoder spends its bits on
//    it like on real footage), libx264 High `veryfast`, 3 B-frames, a fixed 2 s GOP, 6.5 Mb/s
//    average (8 Mb/s peak), AAC stereo. Written with the moov atom at the end, as recorders do
//    (they only know the index once the recording stops), and remuxed (stream copy) into a
//    second, `+faststart` file: identical media, index first.

export type InputKind = 'clean' | 'camera';
export type MoovPlacement = 'first' | 'last';
export type InputSpec = {
  kind: InputKind;
  durationSeconds: number;
  moov: MoovPlacement;
  /** Audio streams in the file (default 1); more are added to the same video and first audio stream. */
  audioTracks?: number;
};

export type InputProperties = {
  container: string | null;
  /** Top-level MP4 boxes in file order (ftyp, moov, mdat, …), read from the file itself. */
  topLevelBoxes: string[];
  moov: MoovPlacement | null;
  durationSeconds: number | null;
  totalBitrateKbps: number | null;
  video: {
    codec: string | null;
    profile: string | null;
    width: number | null;
    height: number | null;
    frameRate: string | null;
    bitrateKbps: number | null;
    pixelFormat: string | null;
    /** Frame types of the first seconds (decoded): how many B-frames, and the keyframe interval. */
    framesInspected: number;
    bFrames: number;
    bFrameShare: number | null;
    keyframeIntervalFrames: number | null;
    keyframeIntervalSeconds: number | null;
  } | null;
  audio: { codec: string | null; profile: string | null; channels: number | null; sampleRate: number | null; bitrateKbps: number | null } | null;
};

export type BenchInput = InputSpec & {
  /** e.g. "clean 30 s", "camera 300 s, moov last" */
  label: string;
  path: string;
  bytes: number;
  reused: boolean;
  generateMs: number | null;
  probedDurationSeconds: number | null;
  /** The ffmpeg command lines that made the file (the second one remuxes to faststart). */
  recipe: string[][];
  properties: InputProperties | null;
};

export const inputLabel = ({ kind, durationSeconds, moov, audioTracks = 1 }: InputSpec): string =>
  (kind === 'clean' ? `clean ${durationSeconds} s` : `camera ${durationSeconds} s, moov ${moov}`) + (audioTracks > 1 ? `, ${audioTracks} audio tracks` : '');

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

/** Camera-like: noise (alls=25, temporal + uniform) lands libx264 at ~6.5 Mb/s with B-frames; moov last. */
export const cameraArgs = (durationSeconds: number, output: string): string[] => [
  '-hide_banner', '-nostdin', '-v', 'error', '-y',
  '-f', 'lavfi', '-i', 'testsrc2=size=1920x1080:rate=30,noise=alls=25:allf=t+u',
  '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000',
  '-t', String(durationSeconds),
  '-c:v', 'libx264', '-profile:v', 'high', '-preset', 'veryfast',
  '-bf', '3', '-g', '60', '-keyint_min', '60', '-sc_threshold', '0',
  '-b:v', '6500k', '-maxrate', '8M', '-bufsize', '12M', '-pix_fmt', 'yuv420p',
  '-c:a', 'aac', '-b:a', '128k', '-ac', '2',
  '-f', 'mp4', output,
];

// The other languages of a multi-language file, in turn: a mono AAC stream, then a 5.1 AC-3 one
// (the tone in its centre channel).
const EXTRA_AUDIO = [
  { frequency: 1000, language: 'spa', surround: false, codec: (stream: number) => [`-c:a:${stream}`, 'aac', `-ac:a:${stream}`, '1', `-b:a:${stream}`, '96k'] },
  { frequency: 2500, language: 'fra', surround: true, codec: (stream: number) => [`-c:a:${stream}`, 'ac3', `-b:a:${stream}`, '384k'] },
] as const;

/**
 * The same video and first audio stream (copied), with audio streams added up to `audioTracks`,
 * each a tone of its own with a language tag; index first.
 */
export const extraAudioTracksArgs = (input: string, durationSeconds: number, audioTracks: number, output: string): string[] => {
  const extra = Array.from({ length: audioTracks - 1 }, (_, index) => EXTRA_AUDIO[index % EXTRA_AUDIO.length]!);
  const surroundFilters = extra.flatMap(({ surround }, index) => (surround ? [`[${index + 1}:a]pan=5.1(side)|FC=c0[surround${index}]`] : []));
  return [
    '-hide_banner', '-nostdin', '-v', 'error', '-y', '-i', input,
    ...extra.flatMap(({ frequency }) => ['-f', 'lavfi', '-i', `sine=frequency=${frequency}:sample_rate=48000:duration=${durationSeconds}`]),
    ...(surroundFilters.length > 0 ? ['-filter_complex', surroundFilters.join(';')] : []),
    '-map', '0:v:0', '-map', '0:a:0',
    ...extra.flatMap(({ surround }, index) => ['-map', surround ? `[surround${index}]` : `${index + 1}:a`]),
    '-c:v', 'copy', '-c:a:0', 'copy',
    ...extra.flatMap(({ codec, language }, index) => [...codec(index + 1), `-metadata:s:a:${index + 1}`, `language=${language}`]),
    '-movflags', '+faststart', '-f', 'mp4', output,
  ];
};

/** The same streams, index moved to the front. */
export const faststartArgs = (input: string, output: string): string[] => [
  '-hide_banner', '-nostdin', '-v', 'error', '-y', '-i', input, '-map', '0', '-c', 'copy', '-movflags', '+faststart', '-f', 'mp4', output,
];

const recipeHash = (recipe: string[] | string[][]): string => createHash('sha256').update(JSON.stringify(recipe)).digest('hex').slice(0, 10);

const probeDuration = async (ffprobe: string, file: string): Promise<number | null> => {
  const result = await runCommand(ffprobe, ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file], {
    timeoutMs: 60_000,
  });
  const value = Number(result.stdout.trim());
  return result.code === 0 && Number.isFinite(value) ? value : null;
};

/** Top-level box types of an ISO BMFF file, in order (reads only the 8–16 byte headers). */
export const topLevelBoxes = (file: string, maxBoxes = 32): string[] => {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const header = Buffer.alloc(16);
    const boxes: string[] = [];
    let offset = 0;
    while (offset + 8 <= size && boxes.length < maxBoxes) {
      readSync(fd, header, 0, 16, offset);
      let boxSize = header.readUInt32BE(0);
      const type = header.toString('latin1', 4, 8);
      if (boxSize === 1) boxSize = Number(header.readBigUInt64BE(8));
      else if (boxSize === 0) boxSize = size - offset;
      if (boxSize < 8 || !/^[\x20-\x7e]{4}$/.test(type)) break;
      boxes.push(type);
      offset += boxSize;
    }
    return boxes;
  } finally {
    closeSync(fd);
  }
};

const stringOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const numberOrNull = (value: unknown): number | null => {
  const parsed = Number(value);
  return value === undefined || value === null || value === '' || !Number.isFinite(parsed) ? null : parsed;
};
const kbps = (value: unknown): number | null => {
  const bits = numberOrNull(value);
  return bits === null ? null : round(bits / 1000, 0);
};

type ProbeStream = Record<string, unknown> & { codec_type?: string };

/** What the input really is: ffprobe's view, the B-frames and GOP of its first seconds, and where its moov is. */
export const probeInputProperties = async (ffprobe: string, file: string): Promise<InputProperties> => {
  const streams = await runCommand(ffprobe, ['-v', 'error', '-show_streams', '-show_format', '-of', 'json', file], { timeoutMs: 60_000 });
  const parsed = JSON.parse(streams.stdout || '{}') as { streams?: ProbeStream[]; format?: Record<string, unknown> };
  const video = parsed.streams?.find((stream) => stream.codec_type === 'video');
  const audio = parsed.streams?.find((stream) => stream.codec_type === 'audio');
  // Frame types of the first ~5 s (a few GOPs); decoding them takes a second or two at 1080p.
  const frames = await runCommand(
    ffprobe,
    ['-v', 'error', '-select_streams', 'v:0', '-read_intervals', '%+5', '-show_entries', 'frame=pict_type,key_frame', '-of', 'csv=p=0', file],
    { timeoutMs: 120_000 },
  );
  const frameRows = frames.stdout.split('\n').map((line) => line.trim()).filter(Boolean);
  const keyIndexes: number[] = [];
  let bFrames = 0;
  frameRows.forEach((row, index) => {
    const [key, type] = row.split(',');
    if (key === '1') keyIndexes.push(index);
    if (type?.startsWith('B')) bFrames++;
  });
  const gaps = keyIndexes.slice(1).map((value, index) => value - (keyIndexes[index] ?? 0));
  const interval = median(gaps);
  const [num, den] = String(video?.avg_frame_rate ?? '').split('/').map(Number);
  const fps = num && den ? num / den : null;
  const boxes = topLevelBoxes(file);
  const moovAt = boxes.indexOf('moov');
  const mdatAt = boxes.indexOf('mdat');
  return {
    container: typeof parsed.format?.format_name === 'string' ? parsed.format.format_name : null,
    topLevelBoxes: boxes,
    moov: moovAt < 0 || mdatAt < 0 ? null : moovAt < mdatAt ? 'first' : 'last',
    durationSeconds: numberOrNull(parsed.format?.duration),
    totalBitrateKbps: kbps(parsed.format?.bit_rate),
    video: video
      ? {
          codec: stringOrNull(video.codec_name),
          profile: stringOrNull(video.profile),
          width: numberOrNull(video.width),
          height: numberOrNull(video.height),
          frameRate: stringOrNull(video.avg_frame_rate),
          bitrateKbps: kbps(video.bit_rate),
          pixelFormat: stringOrNull(video.pix_fmt),
          framesInspected: frameRows.length,
          bFrames,
          bFrameShare: frameRows.length > 0 ? round(bFrames / frameRows.length, 3) : null,
          keyframeIntervalFrames: interval,
          keyframeIntervalSeconds: interval !== null && fps ? round(interval / fps, 3) : null,
        }
      : null,
    audio: audio
      ? {
          codec: stringOrNull(audio.codec_name),
          profile: stringOrNull(audio.profile),
          channels: numberOrNull(audio.channels),
          sampleRate: numberOrNull(audio.sample_rate),
          bitrateKbps: kbps(audio.bit_rate),
        }
      : null,
  };
};

/** Runs `args` (whose last argument is the output) into a temporary name and renames it to `target`. */
const produce = async (ffmpeg: string, makeArgs: (output: string) => string[], target: string, what: string): Promise<number> => {
  const partial = `${target}.partial-${process.pid}.mp4`;
  try {
    const result = await runCommand(ffmpeg, makeArgs(partial), { timeoutMs: 60 * 60_000 });
    if (result.code !== 0) throw new Error(`ffmpeg exited with ${result.signal ?? result.code}: ${result.stderr.trim().slice(-800)}`);
    renameSync(partial, target);
    return result.wallMs;
  } catch (error) {
    rmSync(partial, { force: true });
    throw new Error(`could not generate ${what}: ${errorMessage(error)}`);
  }
};

/** A cached file is reused when it probes to the expected duration (a killed run leaves only a .partial). */
const reusable = async (ffprobe: string, file: string, durationSeconds: number, log: (line: string) => void): Promise<number | null> => {
  if (!existsSync(file)) return null;
  const probed = await probeDuration(ffprobe, file);
  if (probed !== null && Math.abs(probed - durationSeconds) < 1) return probed;
  log(`${path.basename(file)}: cached file is unreadable or has the wrong duration (${probed}); regenerating`);
  rmSync(file, { force: true });
  return null;
};

export const ensureInput = async ({
  spec,
  workDir,
  ffmpeg,
  ffprobe,
  log,
}: {
  spec: InputSpec;
  workDir: string;
  ffmpeg: string;
  ffprobe: string;
  log: (line: string) => void;
}): Promise<BenchInput> => {
  mkdirSync(workDir, { recursive: true });
  const { kind, durationSeconds, moov, audioTracks = 1 } = spec;
  const label = inputLabel(spec);
  if (kind === 'clean' && moov !== 'first') throw new Error('the clean input is only made with its moov first');
  if (audioTracks > 1 && kind !== 'clean') throw new Error('more audio tracks are only added to the clean input');
  const encodeRecipe = kind === 'clean' ? inputArgs(durationSeconds, 'OUT') : cameraArgs(durationSeconds, 'OUT');
  const encodeHash = recipeHash(encodeRecipe);
  // The clean file keeps its historical name, so existing caches stay valid.
  const encoded = path.join(
    workDir,
    kind === 'clean' ? `input-1080p30-${durationSeconds}s-${encodeHash}.mp4` : `input-camera-1080p30-${durationSeconds}s-moovlast-${encodeHash}.mp4`,
  );
  const remuxRecipe = audioTracks > 1 ? extraAudioTracksArgs('IN', durationSeconds, audioTracks, 'OUT') : faststartArgs('IN', 'OUT');
  const remuxed = (kind === 'camera' && moov === 'first') || audioTracks > 1;
  const target = !remuxed
    ? encoded
    : audioTracks > 1
      ? path.join(workDir, `input-1080p30-${durationSeconds}s-${audioTracks}audio-${recipeHash([encodeRecipe, remuxRecipe])}.mp4`)
      : path.join(workDir, `input-camera-1080p30-${durationSeconds}s-faststart-${recipeHash([encodeRecipe, remuxRecipe])}.mp4`);
  const recipe = remuxed ? [encodeRecipe, remuxRecipe] : [encodeRecipe];

  let generateMs: number | null = null;
  let probed = await reusable(ffprobe, target, durationSeconds, log);
  if (probed !== null) {
    log(`input ${label}: reusing ${path.relative(process.cwd(), target)}`);
  } else {
    generateMs = 0;
    if ((await reusable(ffprobe, encoded, durationSeconds, log)) === null) {
      log(`input ${label}: encoding with ffmpeg (${kind === 'camera' ? 'noise at 1080p: ~1.3× the duration in CPU time' : 'the 300 s one takes a few minutes'})…`);
      generateMs += await produce(ffmpeg, (output) => (kind === 'clean' ? inputArgs(durationSeconds, output) : cameraArgs(durationSeconds, output)), encoded, label);
    }
    if (target !== encoded) {
      generateMs += await produce(
        ffmpeg,
        (output) => (audioTracks > 1 ? extraAudioTracksArgs(encoded, durationSeconds, audioTracks, output) : faststartArgs(encoded, output)),
        target,
        `${label} (${audioTracks > 1 ? 'audio tracks added' : 'faststart remux'})`,
      );
    }
    probed = await probeDuration(ffprobe, target);
    log(`input ${label}: generated in ${(generateMs / 1000).toFixed(1)} s`);
  }
  let properties: InputProperties | null = null;
  try {
    properties = await probeInputProperties(ffprobe, target);
  } catch (error) {
    log(`input ${label}: could not probe its properties: ${errorMessage(error)}`);
  }
  return {
    ...spec,
    label,
    path: target,
    bytes: statSync(target).size,
    reused: generateMs === null,
    generateMs: generateMs === null ? null : round(generateMs, 0),
    probedDurationSeconds: probed,
    recipe: recipe.map((args) => ['ffmpeg', ...args]),
    properties,
  };
};
