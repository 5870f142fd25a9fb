import os from 'node:os';
import { buildMultiRungSegmentArgs, buildVideoSegmentArgs, multiRungOutputFd } from '../../lib/media/hls/encode-args';
import { buildLadder, type Rung } from '../../lib/media/hls/ladder';
import { buildSegmentPlan, encodeWindow } from '../../lib/media/hls/segment-plan';
import { runCommand } from '../processes';
import { median, round } from '../stats';
import { childCpuSeconds } from './proc-stat';

// What the machine physically can do with fresh assets: the CPU seconds (user + system, of the
// ffmpeg process alone) that decoding the source costs per second of media, and what encoding each
// rung adds on top, measured with the server's own encode arguments on an otherwise idle machine.
// A fresh asset watched in real time at rung R costs at least decode + encode(R) CPU seconds per
// second; the machine has `cores` of them, so at most cores ÷ (decode + encode(R)) fresh assets
// can be kept in real time at that rung, and the most at the cheapest rung. The physical limit is
// taken from the cheapest rung encoded continuously (one run over the whole input), which no
// per-segment work can beat; what just-in-time encoding pays on top (a process, a seek and an
// encoder start per segment) is the segment cost, reported beside it.

export type RungCodingCost = {
  rung: string;
  /** Median CPU seconds of one segment encode (decode included) per second of media. */
  segmentCpuPerMediaSecond: number;
  /** The same minus the decode: what the rung itself adds. */
  encodeCpuPerMediaSecond: number;
  /** Median wall-clock seconds of the encode per second of media (idle machine, alone). */
  wallPerMediaSecond: number;
  /** cores ÷ (decode + encode): fresh assets the machine keeps in real time at this rung. */
  assetsInRealTime: number;
};

/** Several rungs of one segment from one ffmpeg run (decode once) against their runs alone. */
export type JointCodingCost = {
  rungs: string[];
  /** Median CPU seconds of the joint run per second of media. */
  jointCpuPerMediaSecond: number;
  /** The single-rung runs' medians added up. */
  separateCpuPerMediaSecond: number;
  /** 1 − joint ÷ separate. */
  saved: number;
  jointWallPerMediaSecond: number;
};

export type CodingCosts = {
  cores: number;
  /**
   * The cheapest rung encoded from the whole input in one run (no seek, no process per segment):
   * CPU seconds per second of media. The physical limit is cores ÷ this.
   */
  continuousCheapestCpuPerMediaSecond: number;
  /** The limit if every segment is its own run, as just-in-time encoding makes them (cores ÷ the cheapest rung's segment cost). */
  limitAssetsPerSegmentRuns: number;
  runs: number;
  segmentSeconds: number;
  decodeCpuPerMediaSecond: number;
  rungs: RungCodingCost[];
  joint: JointCodingCost[];
  /** Fresh assets kept in real time at the cheapest rung, encoded continuously: the physical limit. */
  limitAssets: number;
  cheapestRung: string;
};

const FFMPEG = 'ffmpeg';

/** CPU seconds of one ffmpeg run (it must succeed) and its wall-clock seconds. */
export const ffmpegCpu = async (args: readonly string[]): Promise<{ cpuSeconds: number; wallSeconds: number }> => {
  const before = childCpuSeconds();
  const startedAt = performance.now();
  const result = await runCommand(FFMPEG, args, { timeoutMs: 300_000 });
  const wallSeconds = (performance.now() - startedAt) / 1000;
  if (result.code !== 0) throw new Error(`ffmpeg ${args.join(' ')} failed: ${result.stderr.slice(-300)}`);
  return { cpuSeconds: childCpuSeconds() - before, wallSeconds };
};

/** The server's segment encode, written to nowhere. */
export const toNull = (args: string[]): string[] => [...args.slice(0, -1).filter((arg) => arg !== '-nostdin'), '-y', '/dev/null'];

/** A multi-rung encode with each of its `count` output pipes written to nowhere instead. */
const toNullOutputs = (args: string[], count: number): string[] => {
  const pipes = new Set(Array.from({ length: count }, (_, index) => `pipe:${multiRungOutputFd(index)}`));
  return ['-y', ...args.map((arg) => (pipes.has(arg) ? '/dev/null' : arg))];
};

const medianOf = (values: number[]): number => median(values) ?? Number.NaN;

/** `runs` runs of one ffmpeg command: median CPU and wall-clock seconds per second of media. */
const perMediaSecond = async (args: readonly string[], mediaSeconds: number, runs: number): Promise<{ cpu: number; wall: number }> => {
  const cpu: number[] = [];
  const wall: number[] = [];
  for (let run = 0; run < runs; run++) {
    const measured = await ffmpegCpu(args);
    cpu.push(measured.cpuSeconds / mediaSeconds);
    wall.push(measured.wallSeconds / mediaSeconds);
  }
  return { cpu: medianOf(cpu), wall: medianOf(wall) };
};

export const measureCodingCosts = async ({
  inputPath,
  width,
  height,
  frameRate,
  durationSeconds,
  runs = 3,
  log,
}: {
  inputPath: string;
  width: number;
  height: number;
  frameRate: number;
  durationSeconds: number;
  runs?: number;
  log: (line: string) => void;
}): Promise<{ costs: CodingCosts; ladder: Rung[] }> => {
  const cores = os.availableParallelism();
  const decodeCpuPerMediaSecond = (await perMediaSecond(['-hide_banner', '-v', 'error', '-i', inputPath, '-map', '0:v:0', '-f', 'null', '-'], durationSeconds, runs)).cpu;
  const ladder = buildLadder({ display: { width, height }, frameRate, encodingTier: 'smart', maxResolutionTier: '1080p' }).filter((rung) => !rung.isBackground);
  const plan = buildSegmentPlan({ duration: durationSeconds, frameRate, constantFrameRate: true });
  // A full-length segment from the middle of the asset, as most of a viewer's segments are.
  const index = Math.min(plan.segments.length - 1, Math.floor(plan.segments.length / 2));
  const window = encodeWindow(plan, index);
  const rungs: RungCodingCost[] = [];
  for (const rung of ladder) {
    const segment = await perMediaSecond(toNull(buildVideoSegmentArgs({ inputPath, rung, ...window })), window.durationSeconds, runs);
    const segmentCpuPerMediaSecond = segment.cpu;
    const encodeCpuPerMediaSecond = Math.max(0, segmentCpuPerMediaSecond - decodeCpuPerMediaSecond);
    rungs.push({
      rung: rung.name,
      segmentCpuPerMediaSecond: round(segmentCpuPerMediaSecond, 3),
      encodeCpuPerMediaSecond: round(encodeCpuPerMediaSecond, 3),
      wallPerMediaSecond: round(segment.wall, 3),
      assetsInRealTime: round(cores / (decodeCpuPerMediaSecond + encodeCpuPerMediaSecond), 2),
    });
    log(`capacity costs: ${rung.name} ${round(segmentCpuPerMediaSecond, 3)} CPU-s per media second (decode ${round(decodeCpuPerMediaSecond, 3)})`);
  }
  // Decode once, encode every rung wanted: two and three rungs of the segment from one run.
  const joint: JointCodingCost[] = [];
  for (const names of [['270p', '540p'], ['270p', '540p', '720p']]) {
    const chosen = ladder.filter((rung) => names.includes(rung.name));
    if (chosen.length !== names.length) continue;
    const args = buildMultiRungSegmentArgs({ inputPath, outputs: chosen.map((rung) => ({ rung })), ...window });
    const together = await perMediaSecond(toNullOutputs(args, chosen.length), window.durationSeconds, runs);
    const jointCpuPerMediaSecond = together.cpu;
    const separateCpuPerMediaSecond = chosen.reduce((sum, rung) => sum + (rungs.find((cost) => cost.rung === rung.name)?.segmentCpuPerMediaSecond ?? 0), 0);
    joint.push({
      rungs: names,
      jointCpuPerMediaSecond: round(jointCpuPerMediaSecond, 3),
      separateCpuPerMediaSecond: round(separateCpuPerMediaSecond, 3),
      saved: round(1 - jointCpuPerMediaSecond / separateCpuPerMediaSecond, 3),
      jointWallPerMediaSecond: round(together.wall, 3),
    });
    log(`capacity costs: ${names.join(' + ')} together ${round(jointCpuPerMediaSecond, 3)} CPU-s per media second, apart ${round(separateCpuPerMediaSecond, 3)}`);
  }
  // The same rung, continuously: what the machine can do with no per-segment overhead at all.
  const cheapestRung = ladder[0];
  const continuousCheapest = cheapestRung
    ? (await perMediaSecond(toNull(buildVideoSegmentArgs({ inputPath, rung: cheapestRung, seekSeconds: 0, durationSeconds })), durationSeconds, runs)).cpu
    : Number.NaN;
  if (cheapestRung) log(`capacity costs: ${cheapestRung.name} continuously ${round(continuousCheapest, 3)} CPU-s per media second`);
  const cheapest = rungs[0];
  return {
    costs: {
      cores,
      runs,
      segmentSeconds: window.durationSeconds,
      decodeCpuPerMediaSecond: round(decodeCpuPerMediaSecond, 3),
      rungs,
      joint,
      continuousCheapestCpuPerMediaSecond: round(continuousCheapest, 3),
      limitAssetsPerSegmentRuns: cheapest?.assetsInRealTime ?? 0,
      limitAssets: continuousCheapest > 0 ? round(cores / continuousCheapest, 2) : 0,
      cheapestRung: cheapest?.rung ?? '',
    },
    ladder,
  };
};
