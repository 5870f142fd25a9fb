import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { encodeWindow } from '../../media/hls/segment-plan';
import type { Rung } from '../../media/hls/ladder';
import { buildSegmentQualityArgs, psnrOf, readSegmentQuality, type SegmentQuality } from '../../media/quality/segment-quality';
import type { OverlayImage } from '../../media/overlay/overlay-filter';
import { runProcess } from '../../media/run-process';
import { sourceInput } from '../inputs/source-input';
import { overlayImages } from '../playback/overlay-images';
import type { PlaybackPlan } from '../playback/playback-plan';
import { ENCODE_PRIORITY } from '../playback/runtime';
import { ensureInitSegment, ensureVideoSegment } from '../playback/video-segments';
import { childProcesses } from '../processes/child-processes';
import { parseStoredReport, type RungQuality, type StoredQualityReport } from '../../schemas/quality-report';

// Measures an asset's quality report: for every rung of the just-in-time ladder, three segments
// (the first, the middle and the last, fewer on a short asset), each encoded as viewers get it
// (stored ones are reused; missing ones are encoded as idle work, which any viewer's segment
// preempts) and scored against its source window by one ffmpeg at the lowest CPU priority. Rungs
// above 1080p are encoded in the background and not sampled.

const MEASURE_TIMEOUT_MS = 10 * 60 * 1000;

/** Which segments are sampled: the first, the middle and the last. */
export const sampledSegments = (segmentCount: number): number[] =>
  [...new Set([0, Math.floor(segmentCount / 2), segmentCount - 1])].filter((index) => index >= 0 && index < segmentCount).sort((a, b) => a - b);

type Sample = SegmentQuality & { bytes: number; seconds: number };

// What every sample of one measurement reads: the asset's plan, its source and its watermarks.
type Measured = { assetId: string; plan: PlaybackPlan; inputPath: string; overlays: OverlayImage[]; signal: AbortSignal };

const scoreSegment = async ({ assetId, plan, inputPath, overlays, signal }: Measured, rung: Rung, index: number): Promise<Sample> => {
  const video = plan.video!;
  const mediaPath = await ensureVideoSegment({ assetId, plan, rung, index, priority: ENCODE_PRIORITY.background });
  const initPath = await ensureInitSegment({ assetId, plan, rung });
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'keyframe-quality-'));
  try {
    const [init, media] = await Promise.all([readFile(initPath), readFile(mediaPath)]);
    const encodedPath = path.join(scratch, 'segment.mp4');
    await writeFile(encodedPath, Buffer.concat([init, media]));
    const result = await runProcess({
      command: getEnv().ffmpegPath,
      args: buildSegmentQualityArgs({
        encodedPath,
        inputPath,
        rung,
        window: encodeWindow(video, index),
        sourceColour: plan.sourceColour,
        overlays,
        statsDir: scratch,
      }),
      signal,
      timeoutMs: MEASURE_TIMEOUT_MS,
      background: true,
      children: childProcesses(),
    });
    if (result.aborted) throw signal.reason ?? new Error('aborted');
    if (result.exitCode !== 0) throw new Error(`scoring ${rung.name} segment ${index} failed: ${result.stderr.trim().split('\n').at(-1) ?? `exit ${result.exitCode}`}`);
    return { ...(await readSegmentQuality(scratch)), bytes: (await stat(mediaPath)).size, seconds: video.segments[index]!.duration };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
};

const summarise = (rung: Rung, samples: readonly Sample[]): RungQuality => {
  const frames = samples.reduce((sum, sample) => sum + sample.frames, 0);
  const weighted = (value: (sample: Sample) => number) => samples.reduce((sum, sample) => sum + value(sample) * sample.frames, 0) / frames;
  const bits = samples.reduce((sum, sample) => sum + sample.bytes * 8, 0);
  const seconds = samples.reduce((sum, sample) => sum + sample.seconds, 0);
  return {
    name: rung.name,
    width: rung.width,
    height: rung.height,
    target_bitrate: rung.videoBitrate,
    average_bitrate: Math.round(bits / seconds),
    peak_segment_bitrate: Math.round(Math.max(...samples.map((sample) => (sample.bytes * 8) / sample.seconds))),
    ssim: Math.round(weighted((sample) => sample.ssim) * 1e6) / 1e6,
    psnr: Math.round(psnrOf(weighted((sample) => sample.meanSquaredError)) * 100) / 100,
    frames,
  };
};

// Writes the outcome of the measurement requested at `requestedAt` (any one still measuring when
// absent): a newer request (or a deleted asset) wins, and the write is conditional on the row
// still holding the request read.
const settleReport = async (assetId: string, outcome: (requestedAt: string) => StoredQualityReport, requestedAt?: string): Promise<void> => {
  const asset = await getDb().asset.findUnique({ where: { id: assetId }, select: { qualityReportJson: true } });
  if (!asset) return;
  const current = parseStoredReport(asset.qualityReportJson);
  if (current?.status !== 'measuring' || (requestedAt !== undefined && current.requested_at !== requestedAt)) return;
  const report = outcome(current.requested_at);
  await getDb().asset.updateMany({ where: { id: assetId, qualityReportJson: asset.qualityReportJson }, data: { qualityReportJson: JSON.stringify(report) } });
};

export const measureAssetQuality = async ({ assetId, signal }: { assetId: string; signal: AbortSignal }): Promise<void> => {
  const asset = await getDb().asset.findUnique({ where: { id: assetId }, select: { status: true, planJson: true, qualityReportJson: true } });
  const requested = parseStoredReport(asset?.qualityReportJson ?? null);
  if (!asset?.planJson || asset.status !== 'ready' || requested?.status !== 'measuring') return;
  const plan = JSON.parse(asset.planJson) as PlaybackPlan;
  const measured: Measured = { assetId, plan, inputPath: await sourceInput(assetId), overlays: await overlayImages(assetId, plan), signal };
  const indexes = sampledSegments(plan.video?.segments.length ?? 0);
  const rungs: RungQuality[] = [];
  for (const rung of plan.rungs.filter((candidate) => !candidate.isBackground)) {
    const samples: Sample[] = [];
    for (const index of indexes) samples.push(await scoreSegment(measured, rung, index));
    if (samples.length > 0) rungs.push(summarise(rung, samples));
  }
  const measuredAt = new Date().toISOString();
  await settleReport(
    assetId,
    (requestedAt) => ({ status: 'ready', requested_at: requestedAt, measured_at: measuredAt, sampled_segments: indexes, rungs }),
    requested.requested_at,
  );
};

/** The job gave up: the report says why. */
export const giveUpQualityReport = async (assetId: string, error: unknown): Promise<void> => {
  const message = error instanceof Error ? error.message : String(error);
  await settleReport(assetId, (requestedAt) => ({
    status: 'errored',
    requested_at: requestedAt,
    measured_at: new Date().toISOString(),
    error: `The quality could not be measured: ${message}`,
  }));
};
