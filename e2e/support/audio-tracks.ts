import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from '@playwright/test';
import { httpGet, parseMediaPlaylist, type MediaPlaylist, type Rendition } from './hls';
import { audioPresentationSpan, decodeCheck, ffmpeg, probeFrames, probePackets, type ProbedStream } from './media-probe';

// Audio tracks as a listener checks them: sources with several audio streams (each a sine tone of
// its own frequency, so a rendition tells which stream it carries), and an audio rendition fetched
// from its playlist, joined, decoded and measured: its codec and layout, every seam between
// segments, its length, its tone, and how loud each stretch of it is.

export const SAMPLE_RATE = 48_000;
const AAC_FRAME_S = 1024 / SAMPLE_RATE;

/** A lavfi sine input of `frequency` Hz. */
export const sineInput = (frequency: number, seconds: number): string[] => ['-f', 'lavfi', '-i', `sine=frequency=${frequency}:sample_rate=${SAMPLE_RATE}:duration=${seconds}`];

/** The audio streams of the three-language fixture, in stream order, with the tone each carries. */
export const THREE_LANGUAGES = [
  { frequency: 440, language: 'eng', title: 'English', channels: 2 },
  { frequency: 1000, language: 'spa', title: 'Español', channels: 1 },
  // Only the centre speaker sounds: a downmix that kept the front left and right would be silent.
  { frequency: 2500, language: 'fra', title: 'Français 5.1', channels: 6 },
] as const;

/**
 * H.264 640x360 + three audio streams in Matroska (which keeps each stream's title): stereo AAC
 * 440 Hz (eng), mono AAC 1 kHz (spa), 5.1 AC-3 with 2.5 kHz in the centre channel only (fra).
 */
export const makeThreeLanguageSource = async (target: string, seconds: number): Promise<void> => {
  const result = await ffmpeg([
    '-hide_banner', '-v', 'error', '-nostdin', '-y',
    '-f', 'lavfi', '-i', `testsrc2=size=640x360:rate=30:duration=${seconds}`,
    ...THREE_LANGUAGES.flatMap((stream) => sineInput(stream.frequency, seconds)),
    '-filter_complex', '[3:a]pan=5.1(side)|FC=c0[surround]',
    '-map', '0:v', '-map', '1:a', '-map', '2:a', '-map', '[surround]',
    '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-g', '60',
    '-c:a:0', 'aac', '-ac:a:0', '2', '-c:a:1', 'aac', '-ac:a:1', '1', '-c:a:2', 'ac3', '-b:a:2', '384k',
    ...THREE_LANGUAGES.flatMap((stream, index) => [`-metadata:s:a:${index}`, `language=${stream.language}`, `-metadata:s:a:${index}`, `title=${stream.title}`]),
    target,
  ]);
  if (result.code !== 0) throw new Error(`${result.command}: ${result.stderr}`);
};

/** Writes `args` (inputs and codec options) to `target` with ffmpeg. */
export const makeMedia = async (target: string, args: string[]): Promise<void> => {
  const result = await ffmpeg(['-hide_banner', '-v', 'error', '-nostdin', '-y', ...args, target]);
  if (result.code !== 0) throw new Error(`${result.command}: ${result.stderr}`);
};

export type FetchedAudio = {
  url: string;
  playlist: MediaPlaylist;
  /** init + every segment, in order: the whole track as a player appends it. */
  joined: string;
  stream: ProbedStream | undefined;
  /** Presented length of the joined track (priming excluded), seconds. */
  span: number;
  /** Per boundary between segments: start of the next minus end of the previous, ms. */
  seamsMs: number[];
  /** Packet steps in the joined track that differ from one AAC frame by more than 0.1 ms. */
  irregularSteps: string[];
  decodeErrors: string;
};

const download = async (url: string): Promise<Buffer> => {
  const response = await httpGet(url);
  expect(response.status, `GET ${url}: ${response.text.slice(0, 200)}`).toBe(200);
  return response.body;
};

/** Fetches an audio rendition from its playlist URL and measures it (see FetchedAudio). */
export const fetchAudioRendition = async (url: string, workDir: string): Promise<FetchedAudio> => {
  const response = await httpGet(url);
  expect(response.status, `GET ${url}: ${response.text.slice(0, 300)}`).toBe(200);
  const playlist = parseMediaPlaylist(response.text, url);
  expect(playlist.map, `EXT-X-MAP in ${url}`).toBeDefined();
  const name = path.basename(new URL(url).pathname, '.m3u8');
  const init = await download(playlist.map!.url);
  const segments: Buffer[] = [];
  const bounds: Array<{ first: number; end: number }> = [];
  for (const [index, segment] of playlist.segments.entries()) {
    const body = await download(segment.url);
    segments.push(body);
    const single = path.join(workDir, `${name}-${index}.mp4`);
    await writeFile(single, Buffer.concat([init, body]));
    const packets = (await probePackets(single, { select: 'a:0' })).filter((packet) => Number.isFinite(packet.pts));
    expect(packets.length, `packets in ${name} segment ${index}`).toBeGreaterThan(0);
    const last = packets.at(-1)!;
    bounds.push({ first: packets[0]!.pts, end: last.pts + (Number.isFinite(last.duration) ? last.duration : AAC_FRAME_S) });
  }
  const joined = path.join(workDir, `${name}.mp4`);
  await writeFile(joined, Buffer.concat([init, ...segments]));
  const decoded = await decodeCheck(joined);
  const { streams, frames } = await probeFrames(joined, { select: 'a:0' });
  const packets = (await probePackets(joined, { select: 'a:0' })).filter((packet) => Number.isFinite(packet.pts));
  const irregularSteps = packets
    .slice(1)
    .map((packet, offset) => ({ at: packets[offset]!.pts, step: packet.pts - packets[offset]!.pts }))
    .filter(({ step }) => Math.abs(step - AAC_FRAME_S) > 0.0001)
    .map(({ at, step }) => `${(step * 1000).toFixed(3)} ms after ${at}`);
  return {
    url,
    playlist,
    joined,
    stream: streams.find((stream) => stream.codec_type === 'audio'),
    span: audioPresentationSpan(frames),
    seamsMs: bounds.slice(1).map((bound, offset) => (bound.first - bounds[offset]!.end) * 1000),
    irregularSteps,
    decodeErrors: decoded.code === 0 ? decoded.stderr.trim() : `exit ${decoded.code}: ${decoded.stderr}`,
  };
};

/** The decoded samples of the first channel of a file (float, 48 kHz). */
export const decodeFirstChannel = async (file: string): Promise<Float32Array> => {
  const raw = `${file}.f32`;
  const result = await ffmpeg(['-v', 'error', '-y', '-i', file, '-af', 'pan=mono|c0=c0', '-f', 'f32le', '-acodec', 'pcm_f32le', '-ar', String(SAMPLE_RATE), raw]);
  expect(result.code, result.stderr).toBe(0);
  const bytes = await readFile(raw);
  return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
};

/** Root mean square level of samples [from, to) seconds. */
export const rmsBetween = (samples: Float32Array, from: number, to: number): number => {
  const part = samples.subarray(Math.round(from * SAMPLE_RATE), Math.round(to * SAMPLE_RATE));
  return Math.sqrt(part.reduce((sum, value) => sum + value * value, 0) / Math.max(1, part.length));
};

/**
 * The frequency of a pure tone: rising crossings over the time between the first and the last,
 * with hysteresis (a quarter of the peak) so codec noise around zero does not count.
 */
export const toneFrequency = (samples: Float32Array): number => {
  const threshold = samples.reduce((peak, value) => Math.max(peak, Math.abs(value)), 0) / 4;
  const rising: number[] = [];
  let low = false;
  samples.forEach((value, index) => {
    if (value < -threshold) low = true;
    else if (low && value > threshold) {
      rising.push(index);
      low = false;
    }
  });
  if (rising.length < 2) return 0;
  return (rising.length - 1) / ((rising.at(-1)! - rising[0]!) / SAMPLE_RATE);
};

/** The AUDIO renditions of a multivariant playlist, in the order listed. */
export const audioMedia = (media: Rendition[]): Rendition[] => media.filter((entry) => entry.attributes.TYPE === 'AUDIO');
