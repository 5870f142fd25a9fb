import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ChildProcessSet } from '../child-process-set';
import { splitFragmentedMp4 } from '../fmp4';
import { parseProbeOutput } from '../ffprobe';
import { buildMultiRungSegmentArgs, buildVideoSegmentArgs } from '../hls/encode-args';
import { buildLadder, type Rung } from '../hls/ladder';
import { buildSegmentPlan, encodeWindow } from '../hls/segment-plan';
import { buildFrameGrabArgs, rgbFrameBytes } from '../images/image-args';
import { runProcess } from '../run-process';
import { ffmpeg, FFMPEG, FFPROBE, SHARED_MEDIA } from '../test-support/media-fixtures';
import { sourceColourOf, toSdrFilters, type SourceColour } from './sdr-conversion';

const children = new ChildProcessSet();

// HDR and wide-gamut sources come out as 8-bit SDR BT.709 with their colour kept: measured against
// the reference conversion (zscale to linear light, Hable's curve, BT.709) of the same frames, on
// HLG and PQ clips made here and on the real iPhone HLG recording when the media folder is there.

describe('sourceColourOf', () => {
  test.each([
    ['an iPhone HLG recording', { colorTransfer: 'arib-std-b67', colorPrimaries: 'bt2020', colorSpace: 'bt2020nc' }, 'hlg'],
    ['PQ (HDR10)', { colorTransfer: 'smpte2084', colorPrimaries: 'bt2020', colorSpace: 'bt2020nc' }, 'pq'],
    ['BT.2020 primaries with an SDR curve', { colorTransfer: 'bt2020-10', colorPrimaries: 'bt2020', colorSpace: 'bt2020nc' }, 'bt2020'],
    ['only a BT.2020 matrix (10-bit VP9 from the web)', { colorTransfer: null, colorPrimaries: null, colorSpace: 'bt2020nc' }, 'bt2020'],
    ['BT.709', { colorTransfer: 'bt709', colorPrimaries: 'bt709', colorSpace: 'bt709' }, null],
    ['BT.601 (smpte170m)', { colorTransfer: 'smpte170m', colorPrimaries: 'smpte170m', colorSpace: 'smpte170m' }, null],
    ['untagged', { colorTransfer: null, colorPrimaries: null, colorSpace: null }, null],
    ['a probe stored before colour was recorded', {}, null],
  ])('%s', (_name, tags, expected) => {
    expect(sourceColourOf(tags)).toBe(expected);
  });

  test("ffprobe's unknown is no tag", () => {
    const probe = parseProbeOutput({
      streams: [{ index: 0, codec_type: 'video', width: 64, height: 64, color_transfer: 'unknown', color_primaries: 'unknown', color_space: 'bt2020nc' }],
      format: {},
    });
    expect(probe.video[0]).toMatchObject({ colorTransfer: null, colorPrimaries: null, colorSpace: 'bt2020nc' });
  });
});

let dir: string;
const sources: Record<'hlg' | 'pq', string> = { hlg: '', pq: '' };
const TRANSFER = { hlg: 'arib-std-b67', pq: 'smpte2084' } as const;
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'keyframe-sdr-'));
  // A colourful SDR picture written as 10-bit BT.2020 HLG or PQ, as a camera tags it.
  for (const kind of ['hlg', 'pq'] as const) {
    sources[kind] = path.join(dir, `${kind}.mp4`);
    await ffmpeg(
      '-f', 'lavfi', '-i', `testsrc2=size=640x360:rate=30:duration=2,format=gbrp,zscale=tin=bt709:pin=bt709:min=gbr:rin=pc:t=${TRANSFER[kind]}:p=bt2020:m=bt2020nc:r=tv:npl=100,format=yuv420p10le`,
      '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '30',
      '-color_primaries', 'bt2020', '-color_trc', TRANSFER[kind], '-colorspace', 'bt2020nc', '-color_range', 'tv',
      sources[kind],
    );
  }
}, 120_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

const canPin = os.availableParallelism() > 1 && spawnSync('taskset', ['-c', '0', 'true']).status === 0;

// `pinToOneCpu`: as on a one-CPU machine, where ffmpeg's default thread counts differ.
const run = async (args: string[], { pinToOneCpu = false } = {}): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  const command = pinToOneCpu ? { command: 'taskset', args: ['-c', '0', FFMPEG, ...args] } : { command: FFMPEG, args };
  const result = await runProcess({ ...command, onStdout: (chunk) => chunks.push(chunk), children });
  expect(result.exitCode, result.stderr).toBe(0);
  return Buffer.concat(chunks);
};

// Mean of signalstats' SATAVG (chroma distance from grey, 8-bit scale) over every frame.
const averageSaturation = async (input: string, filters: string): Promise<number> => {
  const output = (await run(['-hide_banner', '-v', 'error', '-i', input, '-vf', `${filters},signalstats,metadata=print:key=lavfi.signalstats.SATAVG:file=-`, '-f', 'null', '-'])).toString();
  const values = [...output.matchAll(/SATAVG=([\d.]+)/g)].map((match) => Number(match[1]));
  expect(values.length).toBeGreaterThan(0);
  return values.reduce((sum, value) => sum + value, 0) / values.length;
};
const REFERENCE = 'zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p';

const colourTags = async (file: string) => {
  const result = await runProcess({
    command: FFPROBE,
    args: ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=pix_fmt,color_space,color_transfer,color_primaries', '-of', 'json', file],
    children,
  });
  return (JSON.parse(result.stdout) as { streams: Record<string, string>[] }).streams[0];
};

// A segment as the just-in-time encoder makes it, written out as a playable file.
const encodeSegment = async (source: string, rung: Rung, sourceColour: SourceColour | undefined, name: string) => {
  const plan = buildSegmentPlan({ duration: 2, frameRate: 30, constantFrameRate: true });
  const bytes = await run(buildVideoSegmentArgs({ inputPath: source, rung, ...encodeWindow(plan, 0), sourceColour }));
  const file = path.join(dir, name);
  await writeFile(file, bytes);
  return { file, bytes };
};

const ladder = buildLadder({ display: { width: 640, height: 360 }, frameRate: 30, encodingTier: 'smart', maxResolutionTier: '1080p' });

describe.each(['hlg', 'pq'] as const)('a %s source', (kind) => {
  test('every rung is 8-bit BT.709, as saturated as the reference conversion (at least 0.75×); unconverted it is not', async () => {
    for (const rung of ladder) {
      const { file } = await encodeSegment(sources[kind], rung, kind, `${kind}-${rung.name}.mp4`);
      expect(await colourTags(file)).toEqual({ pix_fmt: 'yuv420p', color_space: 'bt709', color_transfer: 'bt709', color_primaries: 'bt709' });
      const size = `scale=${rung.width}:${rung.height}`;
      const reference = await averageSaturation(sources[kind], `${REFERENCE},${size}`);
      const converted = await averageSaturation(file, 'null');
      expect(converted / reference, rung.name).toBeGreaterThanOrEqual(0.75);
      expect(converted / reference, rung.name).toBeLessThanOrEqual(1.25);
    }
    const unconverted = await encodeSegment(sources[kind], ladder[0]!, undefined, `${kind}-unconverted.mp4`);
    const reference = await averageSaturation(sources[kind], `${REFERENCE},scale=${ladder[0]!.width}:${ladder[0]!.height}`);
    expect((await averageSaturation(unconverted.file, 'null')) / reference).toBeLessThan(0.75);
  });

  test('the same bytes on every encode, on one CPU, and from a multi-rung run as from single-rung ones', async () => {
    const plan = buildSegmentPlan({ duration: 2, frameRate: 30, constantFrameRate: true });
    const window = encodeWindow(plan, 0);
    const single = await Promise.all(ladder.map((rung) => run(buildVideoSegmentArgs({ inputPath: sources[kind], rung, ...window, sourceColour: kind }))));
    const again = await run(buildVideoSegmentArgs({ inputPath: sources[kind], rung: ladder[0]!, ...window, sourceColour: kind }));
    expect(sha256(again)).toBe(sha256(single[0]!));
    if (canPin) {
      const onOneCpu = await run(buildVideoSegmentArgs({ inputPath: sources[kind], rung: ladder[0]!, ...window, sourceColour: kind }), { pinToOneCpu: true });
      expect(sha256(onOneCpu), 'pinned to one CPU').toBe(sha256(single[0]!));
    }
    const outputs: Buffer[][] = ladder.map(() => []);
    const result = await runProcess({
      command: FFMPEG,
      args: buildMultiRungSegmentArgs({ inputPath: sources[kind], outputs: ladder.map((rung) => ({ rung })), ...window, sourceColour: kind }),
      extraOutputs: outputs.map((chunks) => (chunk: Buffer) => void chunks.push(chunk)),
      children,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    ladder.forEach((rung, index) => {
      expect(splitFragmentedMp4(Buffer.concat(outputs[index]!)).fragments.length, rung.name).toBeGreaterThan(0);
      expect(sha256(Buffer.concat(outputs[index]!)), rung.name).toBe(sha256(single[index]!));
    });
  });

  test('a thumbnail is converted as the video is', async () => {
    const size = { width: 320, height: 180 };
    const grab = await run(buildFrameGrabArgs({ inputPath: sources[kind], seekSeconds: 0.5, size, frameLimit: 1, sourceColour: kind }));
    const plain = await run(buildFrameGrabArgs({ inputPath: sources[kind], seekSeconds: 0.5, size, frameLimit: 1 }));
    const reference = await run(['-hide_banner', '-v', 'error', '-ss', '0.5', '-i', sources[kind], '-frames:v', '1', '-vf', `${REFERENCE},scale=320:180,format=rgb24`, '-f', 'rawvideo', 'pipe:1']);
    for (const frame of [grab, plain, reference]) expect(frame.length).toBe(rgbFrameBytes(size));
    const ratio = (frame: Buffer) => meanChroma(frame) / meanChroma(reference);
    expect(ratio(grab)).toBeGreaterThanOrEqual(0.75);
    expect(ratio(plain)).toBeLessThan(0.75);
  });
});

// Mean distance from grey of RGB pixels (BT.709 chroma), the image counterpart of SATAVG.
const meanChroma = (rgb: Buffer): number => {
  let total = 0;
  for (let offset = 0; offset < rgb.length; offset += 3) {
    const [r, g, b] = [rgb[offset]!, rgb[offset + 1]!, rgb[offset + 2]!];
    const luma = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    total += Math.hypot((b - luma) / 1.8556, (r - luma) / 1.5748);
  }
  return total / (rgb.length / 3);
};

test('SDR sources get no conversion: the filters are the same as before', () => {
  expect(toSdrFilters(undefined)).toBeNull();
  expect(toSdrFilters(null)).toBeNull();
  const [rung] = ladder;
  const args = buildVideoSegmentArgs({ inputPath: 'in.mp4', rung: rung!, seekSeconds: 0, durationSeconds: 2 });
  expect(args.join(' ')).not.toMatch(/zscale|tonemap|color_trc/);
});

const iphone = path.join(SHARED_MEDIA, 'iphone_hevc_hlg_portrait_vfr.mov');
test.skipIf(!existsSync(iphone))('the iPhone HLG recording: BT.709 8-bit, its colour kept (was 0.5× the reference unconverted)', async () => {
  const portrait = buildLadder({ display: { width: 1080, height: 1920 }, frameRate: 30, encodingTier: 'smart', maxResolutionTier: '1080p' });
  const rung = portrait.find((candidate) => candidate.height === 960)!;
  const { file } = await encodeSegment(iphone, rung, 'hlg', 'iphone-540p.mp4');
  expect(await colourTags(file)).toEqual({ pix_fmt: 'yuv420p', color_space: 'bt709', color_transfer: 'bt709', color_primaries: 'bt709' });
  const reference = await averageSaturation(iphone, `trim=end=2,${REFERENCE},scale=${rung.width}:${rung.height}`);
  expect((await averageSaturation(file, 'null')) / reference).toBeGreaterThanOrEqual(0.75);
});
