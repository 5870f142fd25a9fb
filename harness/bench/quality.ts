import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildProbeArgs, parseProbeOutput } from '../../lib/media/ffprobe';
import { splitFragmentedMp4 } from '../../lib/media/fmp4';
import { buildVideoSegmentArgs } from '../../lib/media/hls/encode-args';
import type { EncodingTier } from '../../lib/media/encoding-tiers';
import type { Rung } from '../../lib/media/hls/ladder';
import { segmentPeakBitrate } from '../../lib/media/hls/peak-bitrate';
import { targetDurationOf } from '../../lib/media/hls/playlists';
import { encodeWindow } from '../../lib/media/hls/segment-plan';
import { buildSegmentQualityArgs, psnrOf, readSegmentQuality } from '../../lib/media/quality/segment-quality';
import { buildPlaybackPlan, type PlaybackPlan } from '../../lib/services/playback/playback-plan';
import { runCommand } from '../processes';
import { median, round } from '../stats';
import { ffmpegCpu } from './coding-costs';
import { QUALITY_SECONDS, type ContentKind, type QualityContent } from './quality-content';

// Bytes and picture quality of every just-in-time rung, per kind of content, for several rate
// controls side by side: each segment of the first QUALITY_SECONDS is encoded exactly as the server
// encodes it (buildVideoSegmentArgs, one ffmpeg per segment) and scored with SSIM and PSNR against
// the encoder's own input picture (segment-quality.ts, as the asset quality report does).

/** A rate control under test: the ladder it encodes a content's plan with. */
export type QualityVariant = {
  name: string;
  /** The rungs it encodes, from the content's ladder in a given tier. */
  rungsOf: (ladderOf: (tier: EncodingTier) => Rung[]) => Rung[];
  /** Settings the server does not have (an experiment measured beside it): the encode's arguments changed. */
  changeArgs?: (args: string[]) => string[];
};

export type RungQuality = {
  rung: string;
  /** Video bytes per second of media over the measured segments, in kb/s. */
  kbps: number;
  /** The highest segment's video bit rate (its bytes over its duration), kb/s. */
  peakSegmentKbps: number;
  /** Frame-weighted mean SSIM (all planes) and PSNR from the mean squared error. */
  ssim: number;
  psnr: number;
  /** The first segment's encode, wall-clock seconds (alone on the machine): what a cold start waits for. */
  firstSegmentWallSeconds: number;
  /** Median CPU seconds of the segment encodes per second of media. */
  cpuPerMediaSecond: number;
  /** What the rung declares: its cap (maxrate) and nominal average, kb/s. */
  capKbps: number;
  nominalKbps: number;
  /** The peak the multivariant playlist declares for the rung's video (BANDWIDTH less audio); null where it is the maxrate alone (fixed-average rungs). */
  declaredPeakKbps: number | null;
};

export type ContentQuality = {
  kind: ContentKind;
  label: string;
  origin: QualityContent['origin'];
  seconds: number;
  segments: number;
  variants: { name: string; rungs: RungQuality[] }[];
};

const probe = async (inputPath: string) => {
  const result = await runCommand('ffprobe', buildProbeArgs(inputPath), { timeoutMs: 60_000 });
  if (result.code !== 0) throw new Error(`ffprobe ${inputPath}: ${result.stderr.slice(-300)}`);
  return parseProbeOutput(JSON.parse(result.stdout));
};

const measureRung = async ({
  inputPath,
  plan,
  rung,
  workDir,
  changeArgs = (args) => args,
}: {
  inputPath: string;
  plan: PlaybackPlan;
  rung: Rung;
  workDir: string;
  changeArgs?: (args: string[]) => string[];
}): Promise<RungQuality> => {
  const video = plan.video;
  if (!video) throw new Error('no video');
  let bytes = 0;
  let seconds = 0;
  let frames = 0;
  let weightedSsim = 0;
  let weightedMse = 0;
  let peak = 0;
  let firstWall = 0;
  const cpu: number[] = [];
  for (const [index, segment] of video.segments.entries()) {
    const window = encodeWindow(video, index);
    const output = path.join(workDir, `${rung.name}-${index}.mp4`);
    const args = changeArgs(buildVideoSegmentArgs({ inputPath, rung, ...window, sourceColour: plan.sourceColour }));
    const measured = await ffmpegCpu(['-y', ...args.slice(0, -1), output]);
    if (index === 0) firstWall = measured.wallSeconds;
    cpu.push(measured.cpuSeconds / segment.duration);
    // A viewer fetches a rung's init segment once; every segment's moof+mdat is what it pays per second.
    const size = splitFragmentedMp4(readFileSync(output)).fragments.reduce((sum, fragment) => sum + fragment.length, 0);
    bytes += size;
    seconds += segment.duration;
    peak = Math.max(peak, (size * 8) / segment.duration / 1000);
    const statsDir = path.join(workDir, `stats-${rung.name}-${index}`);
    rmSync(statsDir, { recursive: true, force: true });
    mkdirSync(statsDir, { recursive: true });
    const scored = await runCommand('ffmpeg', buildSegmentQualityArgs({ encodedPath: output, inputPath, rung, window, sourceColour: plan.sourceColour, statsDir }), {
      timeoutMs: 300_000,
    });
    if (scored.code !== 0) throw new Error(`scoring ${rung.name} segment ${index}: ${scored.stderr.slice(-300)}`);
    const quality = await readSegmentQuality(statsDir);
    frames += quality.frames;
    weightedSsim += quality.ssim * quality.frames;
    weightedMse += quality.meanSquaredError * quality.frames;
    rmSync(output, { force: true });
  }
  const durations = video.segments.map((segment) => segment.duration);
  const declaredPeak = segmentPeakBitrate(rung, durations, targetDurationOf(durations));
  return {
    rung: rung.name,
    kbps: round((bytes * 8) / seconds / 1000, 0),
    peakSegmentKbps: round(peak, 0),
    ssim: round(weightedSsim / frames, 5),
    psnr: round(psnrOf(weightedMse / frames), 2),
    firstSegmentWallSeconds: round(firstWall, 3),
    cpuPerMediaSecond: round(median(cpu) ?? Number.NaN, 3),
    capKbps: round(rung.maxBitrate / 1000, 0),
    declaredPeakKbps: declaredPeak === null ? null : round(declaredPeak / 1000, 0),
    nominalKbps: round(rung.videoBitrate / 1000, 0),
  };
};

export const measureContentQuality = async ({
  content,
  variants,
  maxShortSide = 1080,
  log,
}: {
  content: QualityContent;
  variants: readonly QualityVariant[];
  maxShortSide?: number;
  log: (line: string) => void;
}): Promise<ContentQuality> => {
  const probed = await probe(content.path);
  const planOf = (encodingTier: EncodingTier) => buildPlaybackPlan({ probe: probed, encodingTier, maxResolutionTier: '1080p', durationCapSeconds: QUALITY_SECONDS });
  const plan = planOf('smart');
  const ladderOf = (tier: EncodingTier) => planOf(tier).rungs;
  if (!plan.video) throw new Error(`${content.label}: no video`);
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'keyframe-quality-'));
  try {
    const results: ContentQuality['variants'] = [];
    for (const variant of variants) {
      const rungs = variant.rungsOf(ladderOf).filter((rung) => !rung.isBackground && Math.min(rung.width, rung.height) <= maxShortSide);
      const measured: RungQuality[] = [];
      for (const rung of rungs) {
        measured.push(await measureRung({ inputPath: content.path, plan, rung, workDir, changeArgs: variant.changeArgs }));
        const last = measured.at(-1)!;
        log(`quality: ${content.kind} ${variant.name} ${rung.name}: ${last.kbps} kb/s (peak ${last.peakSegmentKbps}), SSIM ${last.ssim}, ${last.psnr} dB, cold ${last.firstSegmentWallSeconds} s`);
      }
      results.push({ name: variant.name, rungs: measured });
    }
    return {
      kind: content.kind,
      label: content.label,
      origin: content.origin,
      seconds: round(plan.video.duration, 3),
      segments: plan.video.segments.length,
      variants: results,
    };
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
};
