/**
 * Rotation convention: degrees CLOCKWISE the stored frame must be turned to display upright
 * (the old `tags.rotate` convention). ffprobe >= 5 reports the display matrix angle
 * counter-clockwise, so its `rotation: -90` (typical iPhone portrait) becomes 90 here and
 * `rotation: 90` becomes 270.
 */
export type Rotation = 0 | 90 | 180 | 270;

export type VideoStreamInfo = {
  index: number;
  codec: string;
  profile: string | null;
  pixelFormat: string | null;
  /**
   * Colour tags as ffprobe names them (`arib-std-b67`, `bt2020`, `bt2020nc`…); null when untagged,
   * absent in probes stored before they were recorded.
   */
  colorTransfer?: string | null;
  colorPrimaries?: string | null;
  colorSpace?: string | null;
  /** Stored frame size before rotation (ffprobe width/height, i.e. without codec alignment padding). */
  codedWidth: number;
  codedHeight: number;
  rotation: Rotation;
  /** After sample-aspect-ratio correction and rotation. */
  displayWidth: number;
  displayHeight: number;
  /** Average fps from avg_frame_rate, falling back to r_frame_rate; null if unknown. */
  frameRate: number | null;
  /** avg_frame_rate equals r_frame_rate: every frame sits on one grid (false for VFR phone video). */
  constantFrameRate: boolean;
  bitRate: number | null;
  durationSeconds: number | null;
  /** Cover art (e.g. in MP3/M4A): not real video, such files count as audio-only. */
  isAttachedPicture: boolean;
};

export type AudioStreamInfo = {
  index: number;
  codec: string;
  channels: number;
  channelLayout: string | null;
  sampleRate: number;
  bitRate: number | null;
  durationSeconds: number | null;
  /** null when absent or "und". */
  language: string | null;
  /** The stream's `title` tag ("Director's commentary"), null when absent. */
  title?: string | null;
};

export type MediaProbe = {
  formatName: string;
  /** How sure the demuxer was of the format (0–100); 25 or less is a guess (ffmpeg: "misdetection possible"). */
  probeScore: number | null;
  durationSeconds: number | null;
  sizeBytes: number | null;
  bitRate: number | null;
  startTimeSeconds: number;
  video: VideoStreamInfo[];
  audio: AudioStreamInfo[];
};

export function buildProbeArgs(inputPath: string): string[] {
  return ['-v', 'error', '-hide_banner', '-print_format', 'json', '-show_format', '-show_streams', '-i', inputPath];
}

type JsonObject = Record<string, unknown>;

function asObject(value: unknown): JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : {};
}

/** ffprobe mixes numbers, numeric strings and "N/A"; anything non-finite is unknown. */
function toNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string' || value.trim() === '') return null;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : null;
}

function toPositive(value: unknown): number | null {
  const n = toNumber(value);
  return n !== null && n > 0 ? n : null;
}

function toText(value: unknown): string | null {
  return typeof value === 'string' && value !== '' && value !== 'N/A' ? value : null;
}

function parseRatio(value: unknown, separator: '/' | ':'): number | null {
  if (typeof value !== 'string') return null;
  const [num, den] = value.split(separator).map(Number);
  if (num === undefined || den === undefined || !Number.isFinite(num) || !Number.isFinite(den) || den === 0) return null;
  const ratio = num / den;
  return ratio > 0 ? ratio : null;
}

/** Matroska keeps stream durations only as tags like "00:01:02.500000000". */
function parseClockDuration(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const match = /^(\d+):(\d{1,2}):(\d{1,2}(?:\.\d+)?)$/.exec(value.trim());
  if (!match) return null;
  const seconds = Number(match[1]) * 3600 + Number(match[2]) * 60 + Number(match[3]);
  return Number.isFinite(seconds) && seconds > 0 ? seconds : null;
}

function streamDuration(stream: JsonObject, tags: JsonObject): number | null {
  return toPositive(stream.duration) ?? parseClockDuration(tags.DURATION ?? tags.duration);
}

function streamBitRate(stream: JsonObject, tags: JsonObject): number | null {
  return toPositive(stream.bit_rate) ?? toPositive(tags.BPS ?? tags['BPS-eng']);
}

// Timestamp-derived rates such as Matroska's 1000/1 are container artefacts, not frame rates.
const MAX_PLAUSIBLE_FPS = 1000;

function parseFrameRate(stream: JsonObject): number | null {
  for (const field of [stream.avg_frame_rate, stream.r_frame_rate]) {
    const fps = parseRatio(field, '/');
    if (fps !== null && fps < MAX_PLAUSIBLE_FPS) return fps;
  }
  return null;
}

function isConstantFrameRate(stream: JsonObject): boolean {
  const average = parseRatio(stream.avg_frame_rate, '/');
  const base = parseRatio(stream.r_frame_rate, '/');
  return average !== null && base !== null && average < MAX_PLAUSIBLE_FPS && Math.abs(average - base) <= base * 1e-6;
}

function normaliseClockwise(degrees: number): Rotation {
  const quarterTurns = ((Math.round(degrees / 90) % 4) + 4) % 4;
  return ([0, 90, 180, 270] as const)[quarterTurns] ?? 0;
}

function parseRotation(stream: JsonObject, tags: JsonObject): Rotation {
  const sideData = Array.isArray(stream.side_data_list) ? stream.side_data_list : [];
  for (const entry of sideData) {
    const item = asObject(entry);
    const ccw = toNumber(item.rotation);
    if (item.side_data_type === 'Display Matrix' && ccw !== null) return normaliseClockwise(-ccw);
  }
  const legacyClockwise = toNumber(tags.rotate);
  return legacyClockwise === null ? 0 : normaliseClockwise(legacyClockwise);
}

// ffprobe says `unknown` (or `reserved`) for what the stream does not tag.
function colourTag(value: unknown): string | null {
  const tag = toText(value);
  return tag === null || tag === 'unknown' || tag === 'reserved' || tag === 'unspecified' ? null : tag;
}

function parseVideoStream(stream: JsonObject, index: number): VideoStreamInfo {
  const tags = asObject(stream.tags);
  const width = toPositive(stream.width) ?? toPositive(stream.coded_width) ?? 0;
  const height = toPositive(stream.height) ?? toPositive(stream.coded_height) ?? 0;
  const sampleAspect = parseRatio(stream.sample_aspect_ratio, ':') ?? 1;
  // Like players, stretch horizontally for anamorphic video so the height stays the stored one.
  const uprightWidth = Math.round(width * sampleAspect);
  const rotation = parseRotation(stream, tags);
  const sideways = rotation === 90 || rotation === 270;
  return {
    index,
    codec: toText(stream.codec_name) ?? toText(stream.codec_tag_string) ?? 'unknown',
    profile: toText(stream.profile),
    pixelFormat: toText(stream.pix_fmt),
    colorTransfer: colourTag(stream.color_transfer),
    colorPrimaries: colourTag(stream.color_primaries),
    colorSpace: colourTag(stream.color_space),
    codedWidth: width,
    codedHeight: height,
    rotation,
    displayWidth: sideways ? height : uprightWidth,
    displayHeight: sideways ? uprightWidth : height,
    frameRate: parseFrameRate(stream),
    constantFrameRate: isConstantFrameRate(stream),
    bitRate: streamBitRate(stream, tags),
    durationSeconds: streamDuration(stream, tags),
    isAttachedPicture: toNumber(asObject(stream.disposition).attached_pic) === 1,
  };
}

function parseAudioStream(stream: JsonObject, index: number): AudioStreamInfo {
  const tags = asObject(stream.tags);
  const language = toText(tags.language);
  return {
    index,
    codec: toText(stream.codec_name) ?? toText(stream.codec_tag_string) ?? 'unknown',
    channels: toPositive(stream.channels) ?? 0,
    channelLayout: toText(stream.channel_layout),
    sampleRate: toPositive(stream.sample_rate) ?? 0,
    bitRate: streamBitRate(stream, tags),
    durationSeconds: streamDuration(stream, tags),
    language: language === null || language === 'und' ? null : language,
    title: toText(tags.title),
  };
}

export function parseProbeOutput(json: unknown): MediaProbe {
  const root = asObject(json);
  const format = asObject(root.format);
  const streams = Array.isArray(root.streams) ? root.streams.map(asObject) : [];

  const video: VideoStreamInfo[] = [];
  const audio: AudioStreamInfo[] = [];
  streams.forEach((stream, position) => {
    const index = toNumber(stream.index) ?? position;
    if (stream.codec_type === 'video') video.push(parseVideoStream(stream, index));
    else if (stream.codec_type === 'audio') audio.push(parseAudioStream(stream, index));
  });

  const streamDurations = [...video.filter((v) => !v.isAttachedPicture), ...audio]
    .map((s) => s.durationSeconds)
    .filter((d): d is number => d !== null);

  return {
    formatName: toText(format.format_name) ?? 'unknown',
    probeScore: toNumber(format.probe_score),
    durationSeconds: toPositive(format.duration) ?? (streamDurations.length > 0 ? Math.max(...streamDurations) : null),
    sizeBytes: toNumber(format.size),
    bitRate: toPositive(format.bit_rate),
    startTimeSeconds: toNumber(format.start_time) ?? 0,
    video,
    audio,
  };
}
