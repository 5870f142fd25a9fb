import { existsSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { ffmpeg, ffprobe, writeVideoRotation } from './media-probe';

// Pieces of the image API spec: sources whose pictures are known in advance (so a thumbnail can be
// checked by its pixels), a fetch that keeps the bytes, and decoding with sharp / ffprobe.

type Recipe = { file: string; why: string; args: string[]; after?: (file: string) => Promise<void> };

const lavfiColor = (color: string, size: string, seconds: number, rate = 30) => ['-f', 'lavfi', '-i', `color=c=${color}:s=${size}:r=${rate}:d=${seconds}`];
const x264 = (preset = 'veryfast') => ['-c:v', 'libx264', '-preset', preset, '-pix_fmt', 'yuv420p'];

export const SECOND_COLORS = [
  { name: 'red', rgb: [255, 0, 0] },
  { name: 'lime', rgb: [0, 255, 0] },
  { name: 'blue', rgb: [0, 0, 255] },
  { name: 'white', rgb: [255, 255, 255] },
] as const;

export const IMAGE_FIXTURES = {
  colors: {
    file: 'img_colors_red_lime_blue_white_640x360_30fps_4s.mp4',
    why: '640x360 30 fps, one solid colour per second (red, lime, blue, white), one GOP (x264 default keyint), no audio',
    args: [
      ...SECOND_COLORS.flatMap(({ name }) => lavfiColor(name, '640x360', 1)),
      '-filter_complex', '[0:v][1:v][2:v][3:v]concat=n=4:v=1:a=0,format=yuv420p[v]', '-map', '[v]',
      ...x264(),
    ],
  },
  colorsHlg: {
    file: 'img_colors_red_lime_blue_white_640x360_hlg_10bit_4s.mp4',
    why: 'the `colors` picture as a phone records HDR: 10-bit BT.2020 HLG (H.264 High 10, tagged), 2 s GOP',
    args: [
      ...SECOND_COLORS.flatMap(({ name }) => lavfiColor(name, '640x360', 1)),
      '-filter_complex',
      '[0:v][1:v][2:v][3:v]concat=n=4:v=1:a=0,format=gbrp,zscale=tin=bt709:pin=bt709:min=gbr:rin=pc:t=arib-std-b67:p=bt2020:m=bt2020nc:r=tv:npl=100,format=yuv420p10le[v]',
      '-map', '[v]',
      '-c:v', 'libx264', '-preset', 'veryfast', '-g', '60',
      '-color_primaries', 'bt2020', '-color_trc', 'arib-std-b67', '-colorspace', 'bt2020nc', '-color_range', 'tv',
    ],
  },
  rotated: {
    file: 'img_split_red_blue_640x360_rotate90_2s.mp4',
    why: 'coded 640x360, left half red, right half blue, display matrix rotate 90 (displays 360x640), 2 s',
    args: [
      ...lavfiColor('red', '320x360', 2), ...lavfiColor('blue', '320x360', 2),
      '-filter_complex', '[0:v][1:v]hstack,format=yuv420p[v]', '-map', '[v]',
      ...x264(),
    ],
    after: (file: string) => writeVideoRotation(file, 90),
  },
  grayRamp: {
    file: 'img_gray_steps_64x36_10fps_600s.mp4',
    why: '64x36 10 fps, 10 minutes; luma 16 + 25·((t div 12) mod 8), i.e. a new grey every 12 s (one storyboard tile); 2 s GOP',
    args: [
      '-f', 'lavfi', '-i', "color=c=black:s=64x36:r=10:d=600,format=yuv420p,geq=lum='16+25*mod(floor(T/12)\\,8)':cb=128:cr=128",
      ...x264('ultrafast'), '-g', '20',
    ],
  },
} satisfies Record<string, Recipe>;

export type ImageFixtureName = keyof typeof IMAGE_FIXTURES;

/** Makes the fixture in `dir` unless it is there (temp file + rename, so a half-written file never counts). */
export const ensureImageFixture = async (dir: string, name: ImageFixtureName): Promise<string> => {
  const recipe: Recipe = IMAGE_FIXTURES[name];
  const target = path.join(dir, recipe.file);
  if (existsSync(target)) return target;
  const temp = `${target}.tmp-${process.pid}.mp4`;
  const result = await ffmpeg(['-hide_banner', '-v', 'error', '-nostdin', '-y', ...recipe.args, temp]);
  if (result.code !== 0) throw new Error(`making ${recipe.file} failed: ${result.stderr}`);
  await recipe.after?.(temp);
  await rename(temp, target);
  return target;
};

export type Fetched = { status: number; headers: Headers; body: Buffer; ms: number; url: string };

export const fetchBytes = async (url: string): Promise<Fetched> => {
  const started = performance.now();
  const response = await fetch(url, { signal: AbortSignal.timeout(170_000) });
  const body = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, body, ms: performance.now() - started, url };
};

export const jsonOf = (fetched: Fetched): unknown => JSON.parse(fetched.body.toString('utf8'));

export type DecodedImage = { format: string; width: number; height: number; pixel: (x: number, y: number) => number[] };

/** Decodes an image (first page of an animation unless `page` says otherwise) to RGB. */
export const decodeImage = async (data: Buffer, page = 0): Promise<DecodedImage> => {
  const metadata = await sharp(data).metadata();
  const { data: pixels, info } = await sharp(data, { page }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    format: metadata.format ?? 'unknown',
    width: info.width,
    height: info.height,
    pixel: (x, y) => [...pixels.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3)],
  };
};

/** True when every channel is within `tolerance` (lossy encoders and BT.601/709 conversions shift colours a little). */
export const isColor = (actual: number[], expected: readonly number[], tolerance = 48): boolean =>
  actual.length === 3 && actual.every((value, index) => Math.abs(value - (expected[index] ?? -999)) <= tolerance);

/** Frame count and size of an animated file, counted by ffprobe decoding every frame. */
export const probeAnimation = async (data: Buffer, scratchFile: string) => {
  await writeFile(scratchFile, data);
  try {
    const probe = await ffprobe(['-v', 'error', '-count_frames', '-select_streams', 'v:0', '-show_entries', 'stream=codec_name,width,height,nb_read_frames', '-of', 'json', scratchFile]);
    if (probe.code !== 0) throw new Error(`ffprobe ${scratchFile}: ${probe.stderr}`);
    const [stream] = (JSON.parse(probe.stdout) as { streams: Array<Record<string, string | number>> }).streams;
    return { codec: String(stream?.codec_name), width: Number(stream?.width), height: Number(stream?.height), frames: Number(stream?.nb_read_frames) };
  } finally {
    await rm(scratchFile, { force: true });
  }
};

export type StoryboardCue = { start: number; end: number; url: string; x: number; y: number; w: number; h: number };

const cueSeconds = (stamp: string) => {
  const [hours, minutes, seconds] = stamp.split(':').map(Number);
  return (hours ?? 0) * 3600 + (minutes ?? 0) * 60 + (seconds ?? 0);
};

/** The cues of a storyboard VTT: `start --> end` then `url#xywh=x,y,w,h`. */
export const parseStoryboardVtt = (text: string): StoryboardCue[] => {
  const cues: StoryboardCue[] = [];
  const pattern = /(\d\d:\d\d:\d\d\.\d{3}) --> (\d\d:\d\d:\d\d\.\d{3})\n(\S+)#xywh=(\d+),(\d+),(\d+),(\d+)/g;
  for (const match of text.matchAll(pattern)) {
    const [, start = '', end = '', url = '', x, y, w, h] = match;
    cues.push({ start: cueSeconds(start), end: cueSeconds(end), url, x: Number(x), y: Number(y), w: Number(w), h: Number(h) });
  }
  return cues;
};
