import { execFile } from 'node:child_process';
import { open, readFile } from 'node:fs/promises';

// Real ffmpeg/ffprobe measurements for the playback specs: decode checks, per-frame timing, and a
// few tiny ISO-BMFF readers (avcC, tkhd) so CODECS strings can be compared with the bytes served.

const FFMPEG = process.env.E2E_FFMPEG ?? 'ffmpeg';
const FFPROBE = process.env.E2E_FFPROBE ?? 'ffprobe';

export type ToolResult = { code: number | null; signal: string | null; stdout: string; stderr: string; command: string };

/** Runs a tool to completion and never throws on a non-zero exit (the caller asserts). */
export const runTool = (
  tool: string,
  args: string[],
  { timeoutMs = 170_000 }: { timeoutMs?: number } = {},
): Promise<ToolResult> =>
  new Promise((resolve) => {
    execFile(tool, args, { maxBuffer: 512 * 1024 * 1024, timeout: timeoutMs, encoding: 'utf8' }, (error, stdout, stderr) => {
      const failure = error as (NodeJS.ErrnoException & { code?: number | string; signal?: string }) | null;
      const code = failure ? (typeof failure.code === 'number' ? failure.code : null) : 0;
      resolve({
        code,
        signal: failure?.signal ?? null,
        stdout,
        stderr: failure && typeof failure.code === 'string' ? `${failure.message}\n${stderr}` : stderr,
        command: [tool, ...args].join(' '),
      });
    });
  });

export const ffmpeg = (args: string[], options?: { timeoutMs?: number }) => runTool(FFMPEG, args, options);
export const ffprobe = (args: string[], options?: { timeoutMs?: number }) => runTool(FFPROBE, args, options);

/**
 * Decodes every stream of `input` (a file or an http(s) playlist URL) to nowhere:
 * `ffmpeg -v error -i <input> -map 0 -f null -`. A clean decode exits 0 with an empty stderr.
 */
export const decodeCheck = (input: string, { timeoutMs }: { timeoutMs?: number } = {}) =>
  ffmpeg(['-nostdin', '-hide_banner', '-v', 'error', '-i', input, '-map', '0', '-f', 'null', '-'], { timeoutMs });

export type ProbedFrame = {
  mediaType: 'video' | 'audio' | string;
  streamIndex: number;
  pts: number;
  duration: number;
  width?: number;
  height?: number;
  pictType?: string;
  nbSamples?: number;
  keyFrame: boolean;
};

export type ProbedStream = {
  index: number;
  codec_type: string;
  codec_name?: string;
  profile?: string;
  level?: number;
  width?: number;
  height?: number;
  pix_fmt?: string;
  has_b_frames?: number;
  sample_rate?: string;
  channels?: number;
  r_frame_rate?: string;
  avg_frame_rate?: string;
  duration?: string;
  side_data_list?: Array<{ side_data_type?: string; rotation?: number }>;
  tags?: Record<string, string>;
};

export type ProbedPacket = { streamIndex: number; mediaType: string; pts: number; duration: number; flags: string };

type RawFrame = Record<string, string | number | undefined>;

const num = (value: unknown): number => (value === undefined || value === 'N/A' ? Number.NaN : Number(value));

/** Streams and decoded frames (timestamps in seconds) of a file or playlist URL. */
export const probeFrames = async (
  input: string,
  { select, timeoutMs }: { select?: string; timeoutMs?: number } = {},
): Promise<{ streams: ProbedStream[]; frames: ProbedFrame[]; stderr: string; code: number | null }> => {
  const result = await ffprobe(
    [
      '-v', 'error',
      ...(select ? ['-select_streams', select] : []),
      '-show_streams',
      '-show_frames',
      '-show_entries',
      'frame=media_type,stream_index,key_frame,pts_time,best_effort_timestamp_time,pkt_duration_time,duration_time,width,height,pict_type,nb_samples',
      '-of', 'json',
      input,
    ],
    { timeoutMs },
  );
  if (result.code !== 0) throw new Error(`${result.command} exited ${result.code}: ${result.stderr}`);
  const parsed = JSON.parse(result.stdout) as { streams?: ProbedStream[]; frames?: RawFrame[] };
  const frames = (parsed.frames ?? []).map((frame): ProbedFrame => {
    const pts = num(frame.pts_time);
    return {
      mediaType: String(frame.media_type),
      streamIndex: Number(frame.stream_index),
      pts: Number.isFinite(pts) ? pts : num(frame.best_effort_timestamp_time),
      duration: Number.isFinite(num(frame.pkt_duration_time)) ? num(frame.pkt_duration_time) : num(frame.duration_time),
      width: frame.width === undefined ? undefined : Number(frame.width),
      height: frame.height === undefined ? undefined : Number(frame.height),
      pictType: frame.pict_type === undefined ? undefined : String(frame.pict_type),
      nbSamples: frame.nb_samples === undefined ? undefined : Number(frame.nb_samples),
      keyFrame: Number(frame.key_frame) === 1,
    };
  });
  return { streams: parsed.streams ?? [], frames, stderr: result.stderr, code: result.code };
};

/** Packets (no decoding) of a file, timestamps in seconds. */
export const probePackets = async (input: string, { select }: { select?: string } = {}): Promise<ProbedPacket[]> => {
  const result = await ffprobe([
    '-v', 'error',
    ...(select ? ['-select_streams', select] : []),
    '-show_entries', 'packet=stream_index,codec_type,pts_time,duration_time,flags',
    '-of', 'json',
    input,
  ]);
  if (result.code !== 0) throw new Error(`${result.command} exited ${result.code}: ${result.stderr}`);
  const parsed = JSON.parse(result.stdout) as { packets?: RawFrame[] };
  return (parsed.packets ?? []).map((packet) => ({
    streamIndex: Number(packet.stream_index),
    mediaType: String(packet.codec_type),
    pts: num(packet.pts_time),
    duration: num(packet.duration_time),
    flags: String(packet.flags ?? ''),
  }));
};

/** First presented timestamp to the end of the last frame, in seconds. */
export const presentationSpan = (frames: Array<{ pts: number; duration: number }>): number => {
  if (frames.length === 0) return 0;
  let first = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  for (const frame of frames) {
    first = Math.min(first, frame.pts);
    end = Math.max(end, frame.pts + (Number.isFinite(frame.duration) ? frame.duration : 0));
  }
  return end - first;
};

/** One AAC frame at 48 kHz plus rounding: the encoder priming an edit list hides. */
export const AAC_PRIMING_S = 1024 / 48_000 + 0.0005;

/**
 * Presented span of audio frames. Frames before 0 are encoder priming that the edit list moves
 * before the presentation start (ffmpeg reads the edit list of a fragmented MP4 but still decodes
 * the priming frame at a negative time), so up to one AAC frame before 0 does not count.
 */
export const audioPresentationSpan = (frames: Array<{ pts: number; duration: number }>): number => {
  if (frames.length === 0) return 0;
  const first = Math.min(...frames.map((frame) => frame.pts));
  const end = Math.max(...frames.map((frame) => frame.pts + (Number.isFinite(frame.duration) ? frame.duration : 0)));
  return end - (first < 0 && first >= -AAC_PRIMING_S ? 0 : first);
};

// --- sources ---

export type SourceInfo = {
  file: string;
  streams: ProbedStream[];
  video?: {
    codedWidth: number;
    codedHeight: number;
    rotation: number;
    /** Display size (rotation applied). */
    width: number;
    height: number;
    /** Decoded span of the first video stream. */
    duration: number;
    frameCount: number;
    /** Longest / shortest frame duration seen (VFR sources differ). */
    maxFrameDuration: number;
    minFrameDuration: number;
  };
  /** Decoded span of each audio stream, in stream order. */
  audioDurations: number[];
};

const sourceCache = new Map<string, Promise<SourceInfo>>();

export const rotationOf = (stream: ProbedStream): number => {
  const fromSideData = stream.side_data_list?.find((data) => data.rotation !== undefined)?.rotation;
  const fromTag = stream.tags?.rotate === undefined ? undefined : Number(stream.tags.rotate);
  return Number(fromSideData ?? fromTag ?? 0);
};

/** Probes a source once per process: display size, decoded video span, decoded audio spans. */
export const sourceInfo = (file: string): Promise<SourceInfo> => {
  let cached = sourceCache.get(file);
  if (!cached) {
    cached = (async () => {
      const { streams, frames } = await probeFrames(file);
      const videoStream = streams.find((stream) => stream.codec_type === 'video' && stream.tags?.mimetype === undefined);
      const info: SourceInfo = { file, streams, audioDurations: [] };
      if (videoStream) {
        const videoFrames = frames.filter((frame) => frame.streamIndex === videoStream.index);
        const rotation = rotationOf(videoStream);
        const quarterTurn = Math.abs(Math.round(rotation / 90)) % 2 === 1;
        const codedWidth = Number(videoStream.width);
        const codedHeight = Number(videoStream.height);
        // Frame durations from the gaps between presentation times (pkt_duration is not reliable
        // for VFR files), plus the last frame's own duration.
        const times = videoFrames.map((frame) => frame.pts).filter(Number.isFinite).sort((a, b) => a - b);
        const durations = times.slice(1).map((time, index) => time - times[index]!).filter((gap) => gap > 0);
        const last = videoFrames.at(-1)?.duration;
        if (last !== undefined && Number.isFinite(last) && last > 0) durations.push(last);
        info.video = {
          codedWidth,
          codedHeight,
          rotation,
          width: quarterTurn ? codedHeight : codedWidth,
          height: quarterTurn ? codedWidth : codedHeight,
          duration: presentationSpan(videoFrames),
          frameCount: videoFrames.length,
          maxFrameDuration: Math.max(...durations),
          minFrameDuration: Math.min(...durations),
        };
      }
      for (const stream of streams.filter((candidate) => candidate.codec_type === 'audio')) {
        info.audioDurations.push(audioPresentationSpan(frames.filter((frame) => frame.streamIndex === stream.index)));
      }
      return info;
    })();
    sourceCache.set(file, cached);
  }
  return cached;
};

// --- ISO BMFF ---

export type Box = { type: string; start: number; headerSize: number; size: number; end: number };

/** Top-level boxes of `data` between `from` and `to`. */
export const boxesIn = (data: Buffer, from = 0, to = data.length): Box[] => {
  const boxes: Box[] = [];
  let offset = from;
  while (offset + 8 <= to) {
    let size = data.readUInt32BE(offset);
    const type = data.toString('latin1', offset + 4, offset + 8);
    let headerSize = 8;
    if (size === 1) {
      size = Number(data.readBigUInt64BE(offset + 8));
      headerSize = 16;
    } else if (size === 0) {
      size = to - offset;
    }
    if (size < headerSize || offset + size > to) break;
    boxes.push({ type, start: offset, headerSize, size, end: offset + size });
    offset += size;
  }
  return boxes;
};

const CONTAINERS = new Set(['moov', 'trak', 'mdia', 'minf', 'stbl', 'moof', 'traf', 'mvex', 'edts', 'dinf']);

/** Depth-first search for boxes by path, e.g. `findBoxes(data, ['moov', 'trak'])`. */
export const findBoxes = (data: Buffer, path: string[], from = 0, to = data.length): Box[] => {
  const [head, ...rest] = path;
  const found: Box[] = [];
  for (const box of boxesIn(data, from, to)) {
    if (box.type !== head) continue;
    if (rest.length === 0) found.push(box);
    else if (CONTAINERS.has(box.type)) found.push(...findBoxes(data, rest, box.start + box.headerSize, box.end));
  }
  return found;
};

export type AvcConfig = { profile: number; compatibility: number; level: number; codec: string };

/** Reads the avcC record (searched byte-wise inside the stsd) of an init segment. */
export const readAvcC = (init: Buffer): AvcConfig | undefined => {
  const at = init.indexOf(Buffer.from('avcC', 'latin1'));
  if (at < 4) return undefined;
  const record = at + 4;
  const profile = init[record + 1]!;
  const compatibility = init[record + 2]!;
  const level = init[record + 3]!;
  const hex = (value: number) => value.toString(16).padStart(2, '0');
  return { profile, compatibility, level, codec: `avc1.${hex(profile)}${hex(compatibility)}${hex(level)}` };
};

/** profile_idc for the names ffprobe prints. */
export const H264_PROFILE_IDC: Record<string, number> = {
  Baseline: 66,
  'Constrained Baseline': 66,
  Main: 77,
  Extended: 88,
  High: 100,
  'High 10': 110,
  'High 4:2:2': 122,
  'High 4:4:4 Predictive': 244,
};

/** Handler type (`vide`, `soun`, …) of each trak box, in file order. */
const trakHandlers = (data: Buffer): Array<{ trak: Box; handler: string }> =>
  findBoxes(data, ['moov', 'trak']).map((trak) => {
    const [hdlr] = findBoxes(data, ['mdia', 'hdlr'], trak.start + trak.headerSize, trak.end);
    const handler = hdlr ? data.toString('latin1', hdlr.start + hdlr.headerSize + 8, hdlr.start + hdlr.headerSize + 12) : '';
    return { trak, handler };
  });

/**
 * Writes a rotation display matrix into the video track's tkhd (what phones do). Debian's ffmpeg
 * 5.1 ignores `-metadata:s:v:0 rotate=90` when muxing, so fixtures patch the header directly.
 * `degrees` follows ffprobe's convention (the `rotation` it reports afterwards).
 */
export const writeVideoRotation = async (file: string, degrees: 90 | -90 | 180): Promise<void> => {
  const data = await readFile(file);
  const video = trakHandlers(data).find((entry) => entry.handler === 'vide');
  if (!video) throw new Error(`${file} has no video track`);
  const [tkhd] = findBoxes(data, ['tkhd'], video.trak.start + video.trak.headerSize, video.trak.end);
  if (!tkhd) throw new Error(`${file}: video track without tkhd`);
  const version = data[tkhd.start + tkhd.headerSize]!;
  // version+flags (4), times/track id/reserved/duration (20 or 32), reserved (8), layer, group, volume, reserved (8)
  const matrixOffset = tkhd.start + tkhd.headerSize + 4 + (version === 1 ? 32 : 20) + 8 + 8;
  const one = 0x10000;
  const matrices: Record<number, number[]> = {
    90: [0, -one, 0, one, 0, 0, 0, 0, 0x40000000],
    [-90]: [0, one, 0, -one, 0, 0, 0, 0, 0x40000000],
    180: [-one, 0, 0, 0, -one, 0, 0, 0, 0x40000000],
  };
  const handle = await open(file, 'r+');
  try {
    const bytes = Buffer.alloc(36);
    matrices[degrees]!.forEach((value, index) => bytes.writeInt32BE(value, index * 4));
    await handle.write(bytes, 0, 36, matrixOffset);
  } finally {
    await handle.close();
  }
};
