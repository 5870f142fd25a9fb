import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { encodeWindow } from '../../media/hls/segment-plan';
import type { Rung } from '../../media/hls/ladder';
import { buildSegmentQualityArgs, psnrOf, readSegmentQuality, type SegmentQuality } from '../../media/quality/segment-quality';
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

const scoreSegment = async ({ assetId, plan, rung, index, signal }: { assetId: string; plan: PlaybackPlan; rung: Rung; index: number; signal: AbortSignal }): Promise<Sample> => {
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
        inputPath: await sourceInput(assetId),
        rung,
        window: encodeWindow(video, index),
        sourceColour: plan.sourceColour,
        overlays: await overlayImages(assetId, plan),
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

const storeReport = async (assetId: string, requestedAt: string, report: StoredQualityReport): Promise<void> => {
  // Only the measurement asked for writes its outcome: a newer request (or a deleted asset) wins.
  const asset = await getDb().asset.findUnique({ where: { id: assetId }, select: { qualityReportJson: true } });
  const current = parseStoredReport(asset?.qualityReportJson ?? null);
  if (current?.status !== 'measuring' || current.requested_at !== requestedAt) return;
  await getDb().asset.updateMany({ where: { id: assetId, qualityReportJson: asset!.qualityReportJson }, data: { qualityReportJson: JSON.stringify(report) } });
};

export const measureAssetQuality = async ({ assetId, signal }: { assetId: string; signal: AbortSignal }): Promise<void> => {
  const asset = await getDb().asset.findUnique({ where: { id: assetId }, select: { status: true, planJson: true, qualityReportJson: true } });
  const requested = parseStoredReport(asset?.qualityReportJson ?? null);
  if (!asset?.planJson || asset.status !== 'ready' || requested?.status !== 'measuring') return;
  const plan = JSON.parse(asset.planJson) as PlaybackPlan;
  const indexes = sampledSegments(plan.video?.segments.length ?? 0);
  const rungs: RungQuality[] = [];
  for (const rung of plan.rungs.filter((candidate) => !candidate.isBackground)) {
    const samples: Sample[] = [];
    for (const index of indexes) samples.push(await scoreSegment({ assetId, plan, rung, index, signal }));
    if (samples.length > 0) rungs.push(summarise(rung, samples));
  }
  await storeReport(assetId, requested.requested_at, {
    status: 'ready',
    requested_at: requested.requested_at,
    measured_at: new Date().toISOString(),
    sampled_segments: indexes,
    rungs,
  });
};

/** The job gave up: the report says why. */
export const giveUpQualityReport = async (assetId: string, error: unknown): Promise<void> => {
  const asset = await getDb().asset.findUnique({ where: { id: assetId }, select: { qualityReportJson: true } });
  const requested = parseStoredReport(asset?.qualityReportJson ?? null);
  if (requested?.status !== 'measuring') return;
  const message = error instanceof Error ? error.message : String(error);
  await storeReport(assetId, requested.requested_at, { status: 'errored', requested_at: requested.requested_at, measured_at: new Date().toISOString(), error: `The quality could not be measured: ${message}` });
};
