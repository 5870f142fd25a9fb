import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { sdrFilterThreadArgs, type SourceColour } from '../colour/sdr-conversion';
import { buildSegmentPictureGraph, type SegmentWindow } from '../hls/encode-args';
import type { Rung } from '../hls/ladder';
import type { OverlayImage } from '../overlay/overlay-filter';

// How close an encoded segment is to what it was encoded from: SSIM and PSNR of every frame of the
// segment against the encoder's own input picture (the source window, scaled, converted to SDR and
// watermarked exactly as the encode did it), so the scores measure the encoding alone.

const SSIM_STATS = 'ssim.log';
const PSNR_STATS = 'psnr.log';

/** ffmpeg arguments comparing `encodedPath` (a segment's init and media, one file) with its source window; scores go to files in `statsDir`. */
export const buildSegmentQualityArgs = ({
  encodedPath,
  inputPath,
  rung,
  window,
  sourceColour,
  overlays = [],
  statsDir,
}: {
  encodedPath: string;
  inputPath: string;
  rung: Rung;
  window: SegmentWindow;
  sourceColour?: SourceColour;
  overlays?: readonly OverlayImage[];
  statsDir: string;
}): string[] => {
  const source = buildSegmentPictureGraph({ rung, ...window, overlays, sourceColour, sourceInput: 1, firstImageInput: 2, output: 'source' });
  // The segment's timestamps are on the asset's timeline; the source picture's start at zero.
  const chains = [
    `[0:v:0]setpts=PTS-STARTPTS,format=yuv420p,split[encoded1][encoded2]`,
    ...source.chains,
    `[source]split[source1][source2]`,
    `[encoded1][source1]ssim=stats_file=${path.join(statsDir, SSIM_STATS)}[ssim]`,
    `[encoded2][source2]psnr=stats_file=${path.join(statsDir, PSNR_STATS)}[psnr]`,
  ];
  return [
    '-hide_banner',
    '-nostdin',
    '-v',
    'error',
    ...sdrFilterThreadArgs(sourceColour),
    '-i',
    encodedPath,
    ...source.inputOptions,
    '-i',
    inputPath,
    ...source.imageInputs,
    '-filter_complex',
    chains.join(';'),
    '-map',
    '[ssim]',
    '-f',
    'null',
    '-',
    '-map',
    '[psnr]',
    '-f',
    'null',
    '-',
  ];
};

export type SegmentQuality = { frames: number; ssim: number; psnr: number; meanSquaredError: number };

// Identical pictures have no error: PSNR is reported at this ceiling rather than infinity.
export const MAX_PSNR = 100;

/** PSNR (dB, 8-bit) of a mean squared error, as ffmpeg's summary computes it over a run. */
export const psnrOf = (meanSquaredError: number): number =>
  meanSquaredError <= 0 ? MAX_PSNR : Math.min(MAX_PSNR, 10 * Math.log10((255 * 255) / meanSquaredError));

const fieldValues = (stats: string, field: string): number[] =>
  stats
    .split('\n')
    .map((line) => new RegExp(`(?:^|\\s)${field}:([\\d.]+|inf)`).exec(line)?.[1])
    .filter((value): value is string => value !== undefined)
    .map((value) => (value === 'inf' ? Number.POSITIVE_INFINITY : Number(value)));

const mean = (values: readonly number[]): number => values.reduce((sum, value) => sum + value, 0) / values.length;

/** The scores written by a buildSegmentQualityArgs run: mean SSIM (all planes) and PSNR from the mean squared error over the frames. */
export const parseSegmentQuality = (ssimStats: string, psnrStats: string): SegmentQuality => {
  const ssim = fieldValues(ssimStats, 'All');
  const mse = fieldValues(psnrStats, 'mse_avg');
  if (ssim.length === 0 || mse.length === 0) throw new Error('the comparison scored no frames');
  if (ssim.length !== mse.length) throw new Error(`SSIM scored ${ssim.length} frames and PSNR ${mse.length}`);
  const meanSquaredError = mean(mse);
  return { frames: ssim.length, ssim: mean(ssim), psnr: psnrOf(meanSquaredError), meanSquaredError };
};

/** Reads the scores a run wrote into `statsDir`. */
export const readSegmentQuality = async (statsDir: string): Promise<SegmentQuality> =>
  parseSegmentQuality(await readFile(path.join(statsDir, SSIM_STATS), 'utf8'), await readFile(path.join(statsDir, PSNR_STATS), 'utf8'));
